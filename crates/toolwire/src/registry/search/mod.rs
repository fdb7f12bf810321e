//! [`Registry::search`](super::Registry::search): the registry's tools ranked for a query in
//! words, by BM25 over their names, titles, descriptions and parameters.
//!
//! A registry of hundreds or thousands of tools cannot send every definition on every model
//! turn. The search finds the few that a request needs. The index is built on the first
//! search (about 10,000 tools in well under 100 ms, see `BENCHMARKS.md`) and kept for the
//! registry's life; a registry that is never searched never builds it.

mod bm25;
mod tokens;

pub(crate) use bm25::Index;

use crate::tool::Tool;

/// One tool found by [`Registry::search`](super::Registry::search), with how well it matched.
#[derive(Debug, Clone, Copy)]
pub struct SearchHit<'a> {
    /// The tool.
    pub tool: &'a Tool,
    /// Its BM25 score for the query: larger is better; only comparable within one search.
    pub score: f32,
}
