//! Turning a server's tool definitions into toolwire [`Tool`]s.

use std::sync::Arc;

use serde_json::Value;
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

/// Builds a tool for every pinned definition the server lists.
pub(crate) fn import(connection: &Arc<Connection>) -> Import {
    let server = connection.side.server.clone();
    let definitions = connection.side.catalog.pin_listed();
    let qualified: Vec<String> =
        definitions.iter().map(|def| format!("{server}__{}", def.tool.name)).collect();
    let names = NameMapper::new(qualified.iter().map(String::as_str));
    let mut import = Import { tools: Vec::new(), skipped: Vec::new(), names };
    for (definition, qualified) in definitions.iter().zip(&qualified) {
        let local = import.names.provider_name(qualified).unwrap_or(qualified);
        match build(connection, definition, local) {
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
) -> Result<Tool, DefineError> {
    let remote = &definition.tool;
    let mut builder = Tool::define(local)
        .parameters(Value::Object(remote.input_schema.as_ref().clone()))
        .annotations(annotations(remote));
    if let Some(description) = &remote.description {
        builder = builder.description(description.as_ref());
    }
    if let Some(output) = &remote.output_schema {
        builder = builder.output_schema(Value::Object(output.as_ref().clone()));
    }
    let connection = Arc::clone(connection);
    let name: Arc<str> = remote.name.as_ref().into();
    builder
        .execute(move |args: Value, ctx: ToolContext| {
            let connection = Arc::clone(&connection);
            let name = Arc::clone(&name);
            async move { super::call::call(&connection, &name, args, ctx).await }
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
