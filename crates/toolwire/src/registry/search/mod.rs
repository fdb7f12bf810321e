//! [`Registry::search`](super::Registry::search): the registry's tools ranked for a query in
//! words, by BM25 over their names, titles, descriptions and parameters.
//!
//! [`Registry::search_regex`](super::Registry::search_regex) takes a regular expression
//! instead, as a model writes one, bounded in length and compiled size.
//!
//! A registry of hundreds or thousands of tools cannot send every definition on every model
//! turn. The search finds the few that a request needs. The index is built on the first
//! search (about 10,000 tools in well under 100 ms, see `BENCHMARKS.md`) and kept for the
//! registry's life; a registry that is never searched never builds it.

mod bm25;
mod pattern;
mod tokens;

pub(crate) use bm25::Index;
pub use pattern::{MAX_PATTERN, PatternError};
pub(crate) use pattern::{compile, rank};

use crate::tool::Tool;

/// One tool found by [`Registry::search`](super::Registry::search), with how well it matched.
#[derive(Debug, Clone, Copy)]
pub struct SearchHit<'a> {
    /// The tool.
    pub tool: &'a Tool,
    /// Its score: for [`search`](super::Registry::search), its BM25 score for the query
    /// (larger is better, only comparable within one search); for
    /// [`search_regex`](super::Registry::search_regex), 3 when the pattern matched its name,
    /// 2 its title, 1 its description or a parameter.
    pub score: f32,
}
