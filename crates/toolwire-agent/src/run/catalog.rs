//! The deferred catalog in a run: the tools sent each turn, the search tool that finds the
//! deferred ones, and the gate that refuses a deferred tool no search of the run has found.
//!
//! When the registry defers tools (see [`Registry::is_deferred`]), each turn sends the loaded
//! tools, then a `search_tools` function, then every deferred tool the run's searches have
//! found, in the order found. The list only grows at its end, so a provider's prompt cache of
//! the earlier turns stays good. A search call is answered by the agent itself, with
//! [`Registry::search_deferred`] (BM25 over names, titles, descriptions and parameters).

use std::sync::Arc;

use serde_json::{Value, json};
use toolwire::{FailureKind, Provider, Receipt, Registry, Tool, ToolCall, ToolResult};

use super::guard::refusal;
use crate::{Error, ErrorKind};

/// The name of the agent's tool search, as the model calls it.
pub const SEARCH_TOOL: &str = "search_tools";

/// How many tools a search returns unless the model asks for another number.
const DEFAULT_LIMIT: usize = 5;
/// The most tools one search returns.
const MAX_LIMIT: usize = 20;
/// The most characters of a found tool's description the search's result repeats.
const DESCRIPTION_CHARS: usize = 300;

/// The search tool of a registry that defers tools.
pub(crate) struct Catalog {
    search: Option<Tool>,
}

impl Catalog {
    /// The catalog of `registry`: a search tool when it defers any tool.
    ///
    /// # Errors
    ///
    /// A [`Config`](ErrorKind::Config) error when the registry defers tools and one of its
    /// own tools is named [`SEARCH_TOOL`], which the search could not be told apart from.
    pub(crate) fn new(registry: &Registry) -> Result<Self, Error> {
        if registry.deferred_len() == 0 {
            return Ok(Self { search: None });
        }
        if registry.get(SEARCH_TOOL).is_some() {
            let message = format!(
                "the registry defers tools and also has a tool named {SEARCH_TOOL:?}, the name \
                 of the agent's tool search: rename the tool, or load every tool \
                 (RegistryBuilder::defer_threshold(None))"
            );
            return Err(Error::new(ErrorKind::Config, message));
        }
        Ok(Self { search: Some(search_tool()?) })
    }

    /// The tools of a turn: `loaded` (the tools sent always, in the provider's shape), the
    /// search tool, then the `found` tools in the order found.
    pub(crate) fn tools(
        &self,
        registry: &Registry,
        provider: Provider,
        mut loaded: Vec<Value>,
        found: &[String],
    ) -> Vec<Value> {
        let Some(search) = &self.search else { return loaded };
        loaded.push(search.definition(provider).clone());
        let found = found.iter().filter_map(|name| registry.get(name));
        loaded.extend(found.map(|tool| tool.definition(provider).clone()));
        loaded
    }

    /// The receipt of `call` when the agent answers it without the registry: a search, or a
    /// call of a deferred tool that no search before this turn found (in `known`), refused.
    /// The names a search finds that are new are added to `found`.
    pub(crate) fn answer(
        &self,
        registry: &Registry,
        call: &ToolCall,
        known: &[String],
        found: &mut Vec<String>,
    ) -> Option<Receipt> {
        self.search.as_ref()?;
        if &*call.tool == SEARCH_TOOL {
            let result = search(registry, call, known, found);
            let call_id = (!call.call_id.is_empty()).then(|| call.call_id.clone());
            return Some(Receipt::new(Arc::clone(&call.tool), call_id, result));
        }
        if registry.is_deferred(&call.tool) && !known.iter().any(|name| **name == *call.tool) {
            let text = format!(
                "not run: {:?} is not loaded, and no search of this run has found it; call \
                 {SEARCH_TOOL} with words for what you need, then call one of the tools it \
                 finds",
                &*call.tool
            );
            return Some(refusal(call, text));
        }
        None
    }
}

/// The agent's tool search as a tool, for its definition in each provider's shape (as
/// [`Tool::definition`] gives it): what a run offers after the loaded tools when the
/// registry defers some, for a host that counts or shows what a turn sends. The agent
/// answers its calls itself; the tool's own handler only fails, so registering it in a
/// registry is a mistake.
///
/// # Errors
///
/// None in practice: the definition is fixed; a [`Config`](ErrorKind::Config) error if
/// toolwire ever rejected it.
pub fn search_tool() -> Result<Tool, Error> {
    Tool::define(SEARCH_TOOL)
        .description(
            "Search the tools that are not loaded yet, by what they do. Returns the best \
             matches; each can be called from the next turn on. Call this when no loaded \
             tool fits the task; a tool that no search has found cannot be called.",
        )
        .parameters(json!({
            "type": "object",
            "properties": {
                "query": {
                    "type": "string",
                    "description": "Words for what the tool should do, such as \"create a github issue\"",
                },
                "limit": {
                    "type": "integer",
                    "description": "How many tools to return, 1 to 20; 5 when left out",
                },
            },
            "required": ["query"],
        }))
        .execute_sync(|_, _| ToolResult::failure("answered by the agent"))
        .build()
        .map_err(|error| Error::new(ErrorKind::Config, error.to_string()))
}

/// Runs the search `call` asks for, adding the names not in `known` or `found` to `found`.
fn search(
    registry: &Registry,
    call: &ToolCall,
    known: &[String],
    found: &mut Vec<String>,
) -> ToolResult {
    if let Some(why) = &call.malformed {
        let text = format!("{SEARCH_TOOL}: the arguments could not be read: {why}");
        return ToolResult::failed(FailureKind::InvalidInput, text);
    }
    let query = match call.arguments.get("query") {
        Some(Value::String(query)) if !query.trim().is_empty() => query,
        Some(Value::String(_)) => {
            let text = format!("{SEARCH_TOOL}: `query` is empty; say what the tool should do");
            return ToolResult::failed(FailureKind::InvalidInput, text);
        }
        Some(other) => {
            let text = format!("{SEARCH_TOOL}: `query` must be a string, not {other}");
            return ToolResult::failed(FailureKind::InvalidInput, text);
        }
        None => {
            let text = format!("{SEARCH_TOOL}: `query` is missing; say what the tool should do");
            return ToolResult::failed(FailureKind::InvalidInput, text);
        }
    };
    let limit = match call.arguments.get("limit") {
        None | Some(Value::Null) => DEFAULT_LIMIT,
        Some(value) => match value.as_u64() {
            Some(limit) if limit >= 1 => usize::try_from(limit).unwrap_or(MAX_LIMIT).min(MAX_LIMIT),
            _ => {
                let text = format!(
                    "{SEARCH_TOOL}: `limit` must be a whole number from 1 to {MAX_LIMIT}, not {value}"
                );
                return ToolResult::failed(FailureKind::InvalidInput, text);
            }
        },
    };
    let hits = registry.search_deferred(query, limit);
    if hits.is_empty() {
        let text = format!("No tool matches {query:?}. Try other words, or fewer.");
        return ToolResult::ok(json!({"tools": []}), text);
    }
    let mut listed = Vec::with_capacity(hits.len());
    let mut text = format!("Found {} tools; call them from your next turn:", hits.len());
    for hit in &hits {
        let name = hit.tool.name();
        let description: String =
            hit.tool.description().unwrap_or_default().chars().take(DESCRIPTION_CHARS).collect();
        text.push_str(&format!("\n- {name}: {description}"));
        listed.push(json!({"name": name, "description": description}));
        if !known.iter().chain(found.iter()).any(|seen| seen == name) {
            found.push(name.to_owned());
        }
    }
    ToolResult::ok(json!({"tools": listed}), text)
}
