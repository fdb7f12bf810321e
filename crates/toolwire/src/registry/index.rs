//! The name index of a sealed registry: a hash map with a hasher built for short keys.
//!
//! The standard library's SipHash resists collision attacks on keys an attacker chooses.
//! Here the keys are the host's own tool names, fixed at seal time, so a model's lookups
//! cannot degrade the table, and `rustc-hash`'s multiply-rotate hash costs a few
//! instructions per name instead of a few hundred.

use std::collections::HashMap;
use std::sync::Arc;

/// Maps each tool name to its position in registration order.
pub(super) type NameIndex = HashMap<Arc<str>, usize, rustc_hash::FxBuildHasher>;
