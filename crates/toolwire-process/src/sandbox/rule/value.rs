//! [`RuleValue`]: what sets a rule, as a manifest's reader found it.

use std::path::PathBuf;

use crate::sandbox::{Layer, User};

/// A value that sets a [`Rule`](super::Rule), as a manifest's reader found it: which one
/// a rule takes is its [`kind`](super::Rule::kind).
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub enum RuleValue {
    /// Paths, kept as given.
    Paths(Vec<PathBuf>),
    /// `true` or `false`.
    Switch(bool),
    /// A word, or a size written as text, such as `"512 MiB"`.
    Text(String),
    /// TCP ports.
    Ports(Vec<u16>),
    /// A whole number, or a size in bytes.
    Number(u64),
    /// A user.
    User(User),
    /// Layers of the sandbox.
    Layers(Vec<Layer>),
}
