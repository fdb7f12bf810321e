//! The deferred catalog over MCP sessions: a registry that defers tools (see
//! [`Registry::is_deferred`](toolwire::Registry::is_deferred)) lists, to a client in a
//! session (MCP 2025-11-25), its loaded tools, then [`SEARCH_TOOL`], then the tools the
//! session's searches found, in the order found. A search that finds new tools sends
//! `notifications/tools/list_changed`, so the client lists them; a call of a deferred tool no
//! search of the session found is refused, saying to search first.
//!
//! A 2026-07-28 client has no session for its finds to live in, and this server does not
//! serve `subscriptions/listen`, which would carry the change: it is listed every tool, and
//! its calls are not gated. Nor is a client of a server without sessions (stateless HTTP,
//! which makes a service per request), on any revision.

use std::sync::Mutex;

use rmcp::RoleServer;
use rmcp::model::{CallToolRequestParams, CallToolResponse};
use rmcp::service::RequestContext;
use serde_json::Value;
use toolwire::registry::SEARCH_TOOL;
use toolwire::{Provider, Tool};

use super::content::call_result;
use super::round::error;
use super::{Extras, McpServer, mrtr};

/// The tools one session's searches found, in the order found.
#[derive(Debug, Default)]
pub(crate) struct Found {
    names: Mutex<Vec<String>>,
}

impl Found {
    /// Whether a search of the session found `name`.
    fn contains(&self, name: &str) -> bool {
        self.names.lock().map(|names| names.iter().any(|found| found == name)).unwrap_or(false)
    }

    /// Adds the names not found before; whether there were any.
    fn add(&self, names: Vec<String>) -> bool {
        let Ok(mut found) = self.names.lock() else { return false };
        let before = found.len();
        for name in names {
            if !found.contains(&name) {
                found.push(name);
            }
        }
        found.len() > before
    }

    /// The names, in the order found.
    fn names(&self) -> Vec<String> {
        self.names.lock().map(|names| names.clone()).unwrap_or_default()
    }
}

/// The search tool of a server whose registry defers tools, unless the registry has a tool
/// of that name itself: then nothing is deferred over MCP, and every tool is listed.
pub(crate) fn search_tool(registry: &toolwire::Registry) -> Option<Tool> {
    if registry.deferred_len() == 0 {
        return None;
    }
    if registry.get(SEARCH_TOOL).is_some() {
        tracing::warn!(
            "the registry defers tools but has a tool named {SEARCH_TOOL:?}: over MCP every tool is listed"
        );
        return None;
    }
    toolwire::registry::search_tool().ok()
}

impl<H: Extras> McpServer<H> {
    /// The search tool, when this request's client lists a catalog: the registry defers
    /// tools and the client is in a session.
    pub(crate) fn catalog_search(&self, ctx: &RequestContext<RoleServer>) -> Option<&Tool> {
        self.shared.search.as_ref().filter(|_| self.session.lasting && !mrtr::is_stateless(ctx))
    }

    /// The tools a session lists, in order: the loaded ones of `active`, the search, then the
    /// deferred ones the session found (if still active).
    pub(crate) fn catalog_tools<'a>(
        &'a self,
        search: &'a Tool,
        active: Vec<&'a Tool>,
    ) -> Vec<&'a Tool> {
        let registry = &self.shared.registry;
        let mut listed: Vec<&Tool> =
            active.iter().copied().filter(|tool| !registry.is_deferred(tool.name())).collect();
        listed.push(search);
        for name in self.session.found.names() {
            if let Some(tool) = active.iter().copied().find(|tool| tool.name() == name) {
                listed.push(tool);
            }
        }
        listed
    }

    /// The answer of `request` when the catalog answers it rather than the registry: a
    /// search, or a call of a deferred tool no search of the session found, refused.
    pub(crate) async fn catalog_answer(
        &self,
        request: &CallToolRequestParams,
        ctx: &RequestContext<RoleServer>,
    ) -> Option<CallToolResponse> {
        self.catalog_search(ctx)?;
        let name = request.name.as_ref();
        let registry = &self.shared.registry;
        if name == SEARCH_TOOL {
            let arguments = request.arguments.clone().map_or(Value::Null, Value::Object);
            // Only the tools this session may see are ranked and named.
            let answer =
                registry.answer_search_where(&arguments, Provider::Mcp, |tool| self.lists(tool));
            if self.session.found.add(answer.found) {
                // The client lists the tools found; one that ignores it may still call them.
                if let Err(error) = ctx.peer.notify_tool_list_changed().await {
                    tracing::debug!(%error, "tools/list_changed was not sent");
                }
            }
            return Some(call_result(&answer.result, None).into());
        }
        if registry.is_deferred(name) && !self.session.found.contains(name) {
            let shown: String = name.chars().take(128).collect();
            return Some(error(format!(
                "not run: {shown:?} is not loaded, and no search of this session has found it; \
                 call {SEARCH_TOOL} with words for what you need, then call one of the tools it \
                 finds"
            )));
        }
        None
    }
}
