//! The name index of a sealed registry: a hash map with a hasher built for short names.
//!
//! The standard library's SipHash resists collision attacks on keys an attacker chooses.
//! Here the keys are the host's own tool names, fixed at seal time, so a model's lookups
//! cannot degrade the table; a multiply-rotate hash over 8-byte words (the scheme of
//! Firefox's "FxHash") costs a few instructions per name instead of a few hundred.

use std::collections::HashMap;
use std::hash::{BuildHasherDefault, Hasher};
use std::sync::Arc;

/// Maps each tool name to its position in registration order.
pub(super) type NameIndex = HashMap<Arc<str>, usize, BuildHasherDefault<NameHasher>>;

/// A fast, non-cryptographic hasher for tool names.
#[derive(Default, Clone, Copy)]
pub(super) struct NameHasher(u64);

/// An odd constant with well-spread bits, so one multiplication mixes a word into the state.
const SEED: u64 = 0x51_7c_c1_b7_27_22_0a_95;

impl NameHasher {
    fn add(&mut self, word: u64) {
        self.0 = (self.0.rotate_left(5) ^ word).wrapping_mul(SEED);
    }
}

impl Hasher for NameHasher {
    fn write(&mut self, bytes: &[u8]) {
        let mut words = bytes.chunks_exact(8);
        for word in &mut words {
            let mut buffer = [0; 8];
            buffer.copy_from_slice(word);
            self.add(u64::from_le_bytes(buffer));
        }
        let rest = words.remainder();
        if !rest.is_empty() {
            let mut buffer = [0; 8];
            buffer[..rest.len()].copy_from_slice(rest);
            self.add(u64::from_le_bytes(buffer));
        }
    }

    fn write_u8(&mut self, byte: u8) {
        self.add(u64::from(byte));
    }

    fn write_usize(&mut self, value: usize) {
        self.add(value as u64);
    }

    fn finish(&self) -> u64 {
        self.0
    }
}

#[cfg(test)]
mod tests {
    use std::hash::BuildHasher;

    use super::*;

    #[test]
    fn names_differing_anywhere_hash_apart() {
        let build = BuildHasherDefault::<NameHasher>::default();
        let names =
            ["get_weather", "get_weathers", "get_weatheR", "a", "b", "", "abcdefgh", "abcdefgi"];
        let hashes: std::collections::HashSet<u64> =
            names.iter().map(|n| build.hash_one(n)).collect();
        assert_eq!(hashes.len(), names.len());
    }
}
