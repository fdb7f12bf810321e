//! Turning a server's tool definitions into toolwire [`Tool`]s.

use std::collections::BTreeSet;
use std::sync::Arc;

use serde_json::Value;
use tokio::sync::Semaphore;
use toolwire::provider::names::NameMapper;
use toolwire::{Annotations, DefineError, Tool, ToolContext};

use super::connection::Connection;
use super::pin::Definition;

/// The tools imported from one server; made by [`RemoteServer::import`](super::RemoteServer::import).
#[non_exhaustive]
#[derive(Debug, Clone)]
pub struct Import {
    /// The usable tools, in the server's order, ready to register in a
    /// [`Registry`](toolwire::Registry).
    pub tools: Vec<Tool>,
    /// The tools left out, with the reason.
    pub skipped: Vec<Skipped>,
    /// Maps each `server__tool` name to the provider-safe name its tool is registered under,
    /// and back.
    pub names: NameMapper,
    /// The pin of every listed tool, imported or skipped, in the server's order: what a host
    /// stores to notice a change across sessions (a lock file).
    pub pins: Vec<Pin>,
}

/// What one remote tool was pinned as.
#[non_exhaustive]
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Pin {
    /// The tool's name on the server.
    pub tool: String,
    /// The name it is registered under (the prefix and the tool, made provider-safe).
    pub name: String,
    /// The hex SHA-256 of its definition (as [`RemoteServer::pinned_digest`] gives it).
    ///
    /// [`RemoteServer::pinned_digest`]: super::RemoteServer::pinned_digest
    pub digest: String,
    /// Each part of the definition (`title`, `description`, `inputSchema`, `outputSchema`,
    /// `annotations`) with a short hash of it, to say which parts changed.
    pub parts: Vec<(&'static str, String)>,
}

/// A remote tool that could not be imported.
#[non_exhaustive]
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Skipped {
    /// The tool's name on the server.
    pub tool: String,
    /// Why it was left out, for example its invalid input schema.
    pub reason: String,
}

/// How [`RemoteServer::import_with`](super::RemoteServer::import_with) names and describes
/// the tools it imports.
#[non_exhaustive]
#[derive(Debug, Clone, Default)]
pub struct ImportOptions {
    /// The tools are named `{prefix}{tool}`; `None` is `{server}__`.
    pub prefix: Option<String>,
    /// The hints (read-only, destructive, idempotent, open world) every tool gets instead of
    /// the server's own. A server's claims are its own: a host that does not trust them sets
    /// these (all unset is MCP's cautious default: not read-only, destructive, not
    /// idempotent, open world). `None` keeps the server's.
    pub hints: Option<Annotations>,
    /// The remote tools (by their names on the server) whose every call a human approves
    /// first.
    pub needs_approval: BTreeSet<String>,
    /// Every imported tool's calls need approval.
    pub all_need_approval: bool,
    /// At most this many calls of the imported tools run at once, together; the others
    /// wait their turn (as time of the call). `None` sets no limit.
    pub concurrency: Option<usize>,
}

impl ImportOptions {
    /// The server's names under `{server}__`, its hints, no approvals.
    pub fn new() -> Self {
        Self::default()
    }

    /// Names the tools `{prefix}{tool}`.
    pub fn prefix(mut self, prefix: impl Into<String>) -> Self {
        self.prefix = Some(prefix.into());
        self
    }

    /// Gives every tool `hints` instead of the server's.
    pub fn hints(mut self, hints: Annotations) -> Self {
        self.hints = Some(hints);
        self
    }

    /// Makes every call of the remote tool `tool` wait for a human's approval.
    pub fn needs_approval(mut self, tool: impl Into<String>) -> Self {
        self.needs_approval.insert(tool.into());
        self
    }

    /// Makes every call of every tool wait for a human's approval.
    pub fn all_need_approval(mut self) -> Self {
        self.all_need_approval = true;
        self
    }

    /// Lets at most `limit` calls of the imported tools run at once, together.
    pub fn concurrency(mut self, limit: usize) -> Self {
        self.concurrency = Some(limit);
        self
    }
}

/// Builds a tool for every pinned definition the server lists, as `options` say.
pub(crate) fn import(connection: &Arc<Connection>, options: &ImportOptions) -> Import {
    let default_prefix = format!("{}__", connection.side.server);
    let prefix = options.prefix.as_deref().unwrap_or(&default_prefix);
    let server = connection.side.server.clone();
    let definitions = connection.side.catalog.pin_listed();
    let qualified: Vec<String> =
        definitions.iter().map(|def| format!("{prefix}{}", def.tool.name)).collect();
    let names = NameMapper::new(qualified.iter().map(String::as_str));
    let pins = definitions
        .iter()
        .zip(&qualified)
        .map(|(definition, qualified)| Pin {
            tool: definition.tool.name.to_string(),
            name: names.provider_name(qualified).unwrap_or(qualified).to_owned(),
            digest: definition.digest().to_owned(),
            parts: definition.part_digests(),
        })
        .collect();
    let mut import = Import { tools: Vec::new(), skipped: Vec::new(), names, pins };
    let permits = options.concurrency.map(|limit| Arc::new(Semaphore::new(limit.max(1))));
    for (definition, qualified) in definitions.iter().zip(&qualified) {
        let local = import.names.provider_name(qualified).unwrap_or(qualified);
        match build(connection, definition, local, options, permits.as_ref(), &server) {
            Ok(tool) => import.tools.push(tool),
            Err(error) => {
                let tool = definition.tool.name.to_string();
                tracing::warn!(server = %server, tool = %tool, "skipped mcp tool: {error}");
                import.skipped.push(Skipped { tool, reason: error.to_string() });
            }
        }
    }
    import
}

/// One tool whose handler calls the remote tool.
fn build(
    connection: &Arc<Connection>,
    definition: &Definition,
    local: &str,
    options: &ImportOptions,
    permits: Option<&Arc<Semaphore>>,
    server: &str,
) -> Result<Tool, DefineError> {
    let remote = &definition.tool;
    let mut annotations = annotations(remote);
    if let Some(hints) = &options.hints {
        let title = annotations.title.take();
        annotations = hints.clone();
        annotations.title = title;
    }
    let approval =
        options.all_need_approval || options.needs_approval.contains(remote.name.as_ref());
    let mut builder = Tool::define(local)
        .parameters(Value::Object(remote.input_schema.as_ref().clone()))
        .annotations(annotations)
        .needs_approval(approval)
        .server(server)
        // A server's question (an InputRequiredResult) is a request of the call's own.
        .asks_for_input(true);
    if let Some(description) = &remote.description {
        builder = builder.description(description.as_ref());
    }
    if let Some(output) = &remote.output_schema {
        builder = builder.output_schema(Value::Object(output.as_ref().clone()));
    }
    let connection = Arc::clone(connection);
    let name: Arc<str> = remote.name.as_ref().into();
    let permits = permits.cloned();
    builder
        .execute(move |args: Value, ctx: ToolContext| {
            let connection = Arc::clone(&connection);
            let name = Arc::clone(&name);
            let permits = permits.clone();
            async move {
                // The semaphore is never closed, so a permit always comes.
                let _permit = match &permits {
                    Some(permits) => permits.acquire().await.ok(),
                    None => None,
                };
                super::call::call(&connection, &name, args, ctx).await
            }
        })
        .build()
}

/// The remote tool's hints and title, in toolwire's shape (the same as MCP's).
fn annotations(remote: &rmcp::model::Tool) -> Annotations {
    let mut annotations: Annotations = remote
        .annotations
        .as_ref()
        .and_then(|hints| serde_json::to_value(hints).ok())
        .and_then(|hints| serde_json::from_value(hints).ok())
        .unwrap_or_default();
    if let Some(title) = &remote.title {
        annotations.title = Some(title.clone());
    }
    annotations
}
