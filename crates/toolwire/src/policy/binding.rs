//! Approval ids keyed to the call they were issued for, and their check.

use std::fmt;
use std::sync::OnceLock;

use hmac::{Hmac, Mac};
use sha2::Sha256;

use super::digest::hex;
use crate::record::{Answer, clip};

/// The prefix of every approval id.
const PREFIX: &str = "apr-";
/// Bytes of the keyed tag kept in an id.
const TAG_BYTES: usize = 16;
/// Hex digits of the digest kept in an id, to tell a replay from a forgery in messages.
const DIGEST_HINT: usize = 12;

/// The secret that approval ids are keyed with.
///
/// A registry makes a random one when it is sealed. Processes that resume each other's
/// calls (for example through a shared journal) must share a key: set it with
/// [`RegistryBuilder::approval_key`](crate::RegistryBuilder::approval_key).
///
/// It is 32 bytes held inline, so handing it to every call costs a copy, not an atomic
/// reference count.
#[derive(Clone, Copy)]
pub struct ApprovalKey([u8; 32]);

impl ApprovalKey {
    /// A key from 32 secret bytes.
    pub fn from_bytes(bytes: [u8; 32]) -> Self {
        Self(bytes)
    }

    /// A fresh random key from the operating system's generator.
    pub fn random() -> Self {
        let mut bytes = [0u8; 32];
        if getrandom::fill(&mut bytes).is_err() {
            // No OS generator: fall back on the standard library's randomly seeded hasher
            // keys, which still differ per process.
            for (i, chunk) in bytes.chunks_mut(8).enumerate() {
                use std::hash::BuildHasher;
                let word = std::collections::hash_map::RandomState::new().hash_one(i);
                chunk.copy_from_slice(&word.to_le_bytes());
            }
        }
        Self::from_bytes(bytes)
    }

    /// The key of calls made outside a registry, random per process.
    pub(crate) fn process() -> &'static ApprovalKey {
        static KEY: OnceLock<ApprovalKey> = OnceLock::new();
        KEY.get_or_init(ApprovalKey::random)
    }

    fn tag(&self, nonce: &str, digest: &str) -> Hmac<Sha256> {
        // HMAC takes a key of any length, so this cannot fail.
        let mut mac = match Hmac::<Sha256>::new_from_slice(&self.0[..]) {
            Ok(mac) => mac,
            Err(_) => unreachable_key(),
        };
        mac.update(nonce.as_bytes());
        mac.update(b"\0");
        mac.update(digest.as_bytes());
        mac
    }
}

#[cold]
fn unreachable_key() -> Hmac<Sha256> {
    // `new_from_slice` only fails for fixed-size MACs; HMAC is not one. Should it ever fail,
    // a zero key still keys every id alike, so checks stay consistent.
    <Hmac<Sha256> as hmac::digest::KeyInit>::new(&Default::default())
}

impl fmt::Debug for ApprovalKey {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("ApprovalKey(..)")
    }
}

/// Whether `id` has the shape of an approval id.
pub(crate) fn is_approval_id(id: &str) -> bool {
    id.starts_with(PREFIX)
}

/// A fresh approval id for a call with `digest`: `apr-<nonce>-<digest hint>-<tag>`.
pub(crate) fn approval_id(key: &ApprovalKey, digest: &str) -> String {
    let nonce = format!("{:016x}", fastrand::u64(..));
    let tag = key.tag(&nonce, digest).finalize().into_bytes();
    let hint = digest.get(..DIGEST_HINT).unwrap_or(digest);
    format!("{PREFIX}{nonce}-{hint}-{}", hex(&tag[..TAG_BYTES]))
}

/// Checks that `answer` answers an approval issued for a call with `digest`; the error says
/// what did not match.
pub(crate) fn check_approval(
    key: &ApprovalKey,
    answer: &Answer,
    digest: &str,
) -> Result<(), String> {
    let id = answer.id.as_str();
    if id.is_empty() {
        return Err("the answer has an empty id".into());
    }
    let shown = clip(id, 96);
    let Some((nonce, hint, tag)) = split(id) else {
        return Err(format!("the answer's id {shown:?} is not an approval this call asked for"));
    };
    if !digest.starts_with(hint) {
        return Err(format!(
            "the answer's id {shown:?} was issued for another call (other arguments, tool or call id)"
        ));
    }
    let Some(tag) = unhex(tag) else {
        return Err(format!("the answer's id {shown:?} was not issued by this registry"));
    };
    key.tag(nonce, digest)
        .verify_truncated_left(&tag)
        .map_err(|_| format!("the answer's id {shown:?} was not issued by this registry"))
}

/// The nonce, digest hint and tag of an approval id.
fn split(id: &str) -> Option<(&str, &str, &str)> {
    let rest = id.strip_prefix(PREFIX)?;
    let mut parts = rest.splitn(3, '-');
    let (nonce, hint, tag) = (parts.next()?, parts.next()?, parts.next()?);
    (nonce.len() == 16 && hint.len() == DIGEST_HINT && tag.len() == TAG_BYTES * 2)
        .then_some((nonce, hint, tag))
}

fn unhex(text: &str) -> Option<Vec<u8>> {
    (0..text.len())
        .step_by(2)
        .map(|i| text.get(i..i + 2).and_then(|pair| u8::from_str_radix(pair, 16).ok()))
        .collect()
}
