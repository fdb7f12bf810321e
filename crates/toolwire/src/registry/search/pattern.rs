//! Tools found by a regular expression, as a model writes one for a tool search: matched
//! case-insensitively against each tool's name, title, description and parameters' names
//! and descriptions, a match in the name ranking first.
//!
//! The pattern comes from the model, so it is bounded: at most [`MAX_PATTERN`] bytes, and
//! compiled with small size and nesting limits. The `regex` crate matches in time linear in
//! the text, whatever the pattern (no backtracking), so no pattern can make a search hang.

use std::fmt;

use regex::{Regex, RegexBuilder};

use crate::tool::Tool;

/// The longest pattern taken, in bytes.
pub const MAX_PATTERN: usize = 1024;
/// The most memory a compiled pattern may take.
const SIZE_LIMIT: usize = 1 << 20;
/// How deeply a pattern may nest groups and repetitions.
const NEST_LIMIT: u32 = 32;

/// Why a pattern was not searched with.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PatternError {
    reason: String,
}

impl fmt::Display for PatternError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "the search pattern is not usable: {}", self.reason)
    }
}

impl std::error::Error for PatternError {}

/// `pattern`, compiled within the limits.
pub(crate) fn compile(pattern: &str) -> Result<Regex, PatternError> {
    if pattern.len() > MAX_PATTERN {
        let reason =
            format!("it is {} bytes long, more than the {MAX_PATTERN} allowed", pattern.len());
        return Err(PatternError { reason });
    }
    RegexBuilder::new(pattern)
        .case_insensitive(true)
        .size_limit(SIZE_LIMIT)
        .dfa_size_limit(SIZE_LIMIT)
        .nest_limit(NEST_LIMIT)
        .build()
        .map_err(|error| PatternError { reason: error.to_string() })
}

/// How well `tool` matches `regex`: 3 for its name, 2 for its title, 1 for `text` (its
/// description and parameters, as the index keeps them), 0 for none.
pub(crate) fn rank(regex: &Regex, tool: &Tool, text: &str) -> u8 {
    if regex.is_match(tool.name()) {
        return 3;
    }
    if tool.annotations().title.as_deref().is_some_and(|title| regex.is_match(title)) {
        return 2;
    }
    u8::from(regex.is_match(text))
}
