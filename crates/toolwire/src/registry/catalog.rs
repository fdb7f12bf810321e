//! The catalog: which tools a model is shown on every turn, and which wait, deferred, until a
//! search finds them.
//!
//! A registry of a few MCP servers holds hundreds of tools, and sending every definition on
//! every turn costs more context than the conversation itself. So each tool is either loaded
//! (sent every turn) or deferred (sent once a search of the run has found it). A tool is
//! deferred when [`RegistryBuilder::defer_loading`](super::RegistryBuilder::defer_loading)
//! says so, and otherwise when the registry holds at least
//! [`defer_threshold`](super::RegistryBuilder::defer_threshold) tools
//! ([`DEFAULT_DEFER_THRESHOLD`], 100, unless set).
//!
//! The registry only knows the setting; the agent loop and the MCP server act on it: they
//! offer the loaded tools and the search tool ([`SEARCH_TOOL`](super::SEARCH_TOOL)), add what
//! each search finds, and refuse a call to a deferred tool that no search of the run (or MCP
//! session) has found.

use std::any::Any;

use serde_json::Value;

use super::index::NameIndex;
use super::{Registry, SearchHit};
use crate::provider::Provider;
use crate::tool::Tool;

/// The number of tools at which a registry defers every tool not set to load always, as
/// Codex does for its MCP tools.
pub const DEFAULT_DEFER_THRESHOLD: usize = 100;

/// The catalog settings a builder collects.
#[derive(Debug, Clone)]
pub(super) struct Settings {
    /// Defer every tool not set otherwise when there are at least this many.
    pub(super) threshold: Option<usize>,
    /// Each tool set to load always (`false`) or to wait (`true`), the last setting winning.
    pub(super) choices: Vec<(String, bool)>,
}

impl Default for Settings {
    fn default() -> Self {
        Self { threshold: Some(DEFAULT_DEFER_THRESHOLD), choices: Vec::new() }
    }
}

impl Settings {
    /// Whether each tool, by position, is deferred; or the names of the choices that name
    /// no tool, in the order given.
    pub(super) fn resolve(
        &self,
        tools: &[Tool],
        index: &NameIndex,
    ) -> Result<Vec<bool>, Vec<String>> {
        let automatic = self.threshold.is_some_and(|threshold| tools.len() >= threshold);
        let mut deferred = vec![automatic; tools.len()];
        let mut unknown: Vec<String> = Vec::new();
        for (name, defer) in &self.choices {
            match index.get(name.as_str()) {
                Some(&position) => deferred[position] = *defer,
                None if !unknown.contains(name) => unknown.push(name.clone()),
                None => {}
            }
        }
        if unknown.is_empty() { Ok(deferred) } else { Err(unknown) }
    }
}

impl Registry {
    /// Whether the tool called `name` is deferred: left out of the tools a model is shown
    /// until a search finds it (see [`defer_loading`](super::RegistryBuilder::defer_loading)).
    /// `false` for a name the registry does not hold.
    pub fn is_deferred(&self, name: &str) -> bool {
        self.inner.index.get(name).is_some_and(|&position| self.inner.deferred[position])
    }

    /// How many tools are deferred.
    pub fn deferred_len(&self) -> usize {
        self.inner.deferred.iter().filter(|&&deferred| deferred).count()
    }

    /// The `provider` shapes of the tools active for `state` that are loaded always, in
    /// registration order: what a model is shown on every turn, before any search.
    ///
    /// ```
    /// use toolwire::{Provider, Registry, Tool, ToolResult};
    /// let tool = |name: &str| {
    ///     Tool::define(name).execute_sync(|_, _| ToolResult::ok(serde_json::Value::Null, "")).build()
    /// };
    /// let registry = Registry::builder()
    ///     .register(tool("read_file")?)
    ///     .register(tool("drop_database")?)
    ///     .defer_loading("drop_database", true)
    ///     .seal()?;
    /// assert!(registry.is_deferred("drop_database"));
    /// let shown = registry.loaded_definitions(Provider::Mcp, &());
    /// assert_eq!(shown.len(), 1);
    /// assert_eq!(shown[0]["name"], "read_file");
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn loaded_definitions<S: Any>(&self, provider: Provider, state: &S) -> Vec<&Value> {
        let state: &dyn Any = state;
        self.inner
            .tools
            .iter()
            .zip(&self.inner.deferred)
            .filter(|(tool, deferred)| !**deferred && tool.is_active_for(Some(state)))
            .map(|(tool, _)| tool.definition(provider))
            .collect()
    }

    /// [`search`](Self::search) over the deferred tools only: the `k` that best match
    /// `query`, best first.
    pub fn search_deferred(&self, query: &str, k: usize) -> Vec<SearchHit<'_>> {
        self.search_deferred_where(query, k, |_| true)
    }

    /// [`search_deferred`](Self::search_deferred) over the deferred tools `keep` accepts.
    pub(super) fn search_deferred_where(
        &self,
        query: &str,
        k: usize,
        keep: impl Fn(&Tool) -> bool,
    ) -> Vec<SearchHit<'_>> {
        let (tools, deferred) = (&self.inner.tools, &self.inner.deferred);
        self.search_where(query, k, |position| {
            deferred.get(position).copied().unwrap_or(false)
                && tools.get(position).is_some_and(&keep)
        })
    }
}
