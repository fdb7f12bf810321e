//! Unique identifiers for invocations and suspension requests.
//!
//! An id is a per-process random prefix and a counter, so creating one costs an atomic
//! increment, ids never repeat within a process, and ids from two processes almost never meet.

use std::collections::hash_map::RandomState;
use std::fmt;
use std::hash::BuildHasher;
use std::num::NonZeroU64;
use std::sync::OnceLock;
use std::sync::atomic::{AtomicU64, Ordering};

use serde::{Serialize, Serializer};

static NEXT: AtomicU64 = AtomicU64::new(1);

/// A random number drawn once per process.
fn process_prefix() -> u64 {
    static PREFIX: OnceLock<u64> = OnceLock::new();
    *PREFIX.get_or_init(|| RandomState::new().hash_one(std::process::id()))
}

/// A fresh `(prefix, sequence)` pair, unique within the process.
fn next() -> (u64, u64) {
    (process_prefix(), NEXT.fetch_add(1, Ordering::Relaxed))
}

/// The unique id of one invocation of a tool, shown as `inv-<prefix>-<sequence>` in hex.
///
/// Read it in a handler with [`ToolContext::invocation_id`](crate::ToolContext::invocation_id).
///
/// Only the counter is stored, so an id takes eight bytes; the prefix is the same for every
/// id of a process and is added when the id is shown.
#[derive(Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct InvocationId {
    sequence: NonZeroU64,
}

impl InvocationId {
    /// A new id, different from every other made in this process.
    pub fn new() -> Self {
        let sequence = NEXT.fetch_add(1, Ordering::Relaxed);
        // The counter starts at 1 and would take centuries to wrap at a billion ids a second.
        Self { sequence: NonZeroU64::new(sequence).unwrap_or(NonZeroU64::MIN) }
    }
}

impl Default for InvocationId {
    fn default() -> Self {
        Self::new()
    }
}

impl fmt::Display for InvocationId {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "inv-{:016x}-{:x}", process_prefix(), self.sequence)
    }
}

impl fmt::Debug for InvocationId {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "InvocationId({self})")
    }
}

impl Serialize for InvocationId {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        serializer.collect_str(self)
    }
}

/// A fresh id string for a suspension request: `req-<prefix>-<sequence>`.
pub(crate) fn request_id() -> String {
    let (prefix, sequence) = next();
    format!("req-{prefix:016x}-{sequence:x}")
}
