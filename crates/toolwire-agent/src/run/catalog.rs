//! The deferred catalog in a run: the tools sent each turn, the search tool that finds the
//! deferred ones, and the gate that refuses a deferred tool no search of the run has found.
//!
//! When the registry defers tools (see [`Registry::is_deferred`]), each turn sends the loaded
//! tools, then the search ([`SEARCH_TOOL`]), then the deferred tools in the provider's form
//! (see [`CatalogForm`](toolwire::provider::CatalogForm)): the found ones appended, every one
//! marked `defer_loading` for Anthropic, or none for Responses, whose search output carries
//! them. A search call is answered by the agent itself, with [`Registry::answer_search`].

use std::sync::Arc;

use serde_json::Value;
use toolwire::provider::{CatalogTools, ModelApi};
use toolwire::registry::{SEARCH_TOOL, search_tool};
use toolwire::{Receipt, Registry, Tool, ToolCall};

use super::Shared;
use super::guard::refusal;
use crate::{Error, ErrorKind};

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
        let search =
            search_tool().map_err(|error| Error::new(ErrorKind::Config, error.to_string()))?;
        Ok(Self { search: Some(search) })
    }

    /// The tools of a turn: `loaded` (the tools sent always, in the provider's shape), then
    /// the search and the deferred tools as the provider carries them, `found` being the
    /// ones the run's searches found, in the order found.
    pub(crate) fn tools(
        &self,
        shared: &Shared,
        api: ModelApi,
        loaded: &[Value],
        found: &[String],
    ) -> Vec<Value> {
        let Some(search) = &self.search else { return loaded.to_vec() };
        let (registry, provider) = (&shared.registry, api.provider());
        // Only deferred tools active for the run's state; a found tool the registry has since
        // loaded is among `loaded` already.
        let waiting =
            |tool: &&Tool| registry.is_deferred(tool.name()) && shared.app.is_active(tool);
        let deferred: Vec<&Value> =
            registry.tools().iter().filter(waiting).map(|tool| tool.definition(provider)).collect();
        let found: Vec<&Value> = found
            .iter()
            .filter_map(|name| registry.get(name))
            .filter(waiting)
            .map(|tool| tool.definition(provider))
            .collect();
        let search = search.definition(provider);
        api.catalog_tools(&CatalogTools { loaded, search, deferred: &deferred, found: &found })
    }

    /// The receipt of `call` when the agent answers it without the registry: a search, or a
    /// call of a deferred tool that no search before this turn found (in `known`), refused.
    /// The names a search finds that are new are added to `found`.
    pub(crate) fn answer(
        &self,
        shared: &Shared,
        api: ModelApi,
        call: &ToolCall,
        known: &[String],
        found: &mut Vec<String>,
    ) -> Option<Receipt> {
        self.search.as_ref()?;
        let registry = &shared.registry;
        if &*call.tool == SEARCH_TOOL {
            let call_id = (!call.call_id.is_empty()).then(|| call.call_id.clone());
            let result = match &call.malformed {
                Some(why) => toolwire::ToolResult::failed(
                    toolwire::FailureKind::InvalidInput,
                    format!("{SEARCH_TOOL}: the arguments could not be read: {why}"),
                ),
                None => {
                    let active = |tool: &Tool| shared.app.is_active(tool);
                    let answer =
                        registry.answer_search_where(&call.arguments, api.provider(), active);
                    for name in answer.found {
                        if !known.contains(&name) && !found.contains(&name) {
                            found.push(name);
                        }
                    }
                    answer.result
                }
            };
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
