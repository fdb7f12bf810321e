//! The session's client, reachable from inside a tool handler while a `tools/call` runs.

use std::future::Future;

use rmcp::{Peer, RoleServer};

tokio::task_local! {
    /// The peer of the session whose `tools/call` is running on this task.
    static PEER: Peer<RoleServer>;
}

/// The client of the MCP session whose `tools/call` is running, when called from inside a
/// tool's handler served by an [`McpServer`](super::McpServer); `None` anywhere else (outside
/// a call, on another task the handler spawned, or when the tool runs outside MCP).
///
/// With it a handler can send requests of its own to the client, such as
/// `sampling/createMessage`, or read the capabilities the client declared. Prefer toolwire's
/// own [`Request`](toolwire::Request) for asking the user: it works outside MCP too.
///
/// ```no_run
/// use serde_json::Value;
/// use toolwire::{Tool, ToolContext, ToolResult};
///
/// let tool = Tool::define("who_is_there")
///     .description("Name the MCP client that called this tool")
///     .execute(|_args: Value, _ctx: ToolContext| async move {
///         match toolwire_mcp::server::peer().and_then(|peer| peer.peer_info()) {
///             Some(info) => ToolResult::ok_json(Value::from(info.client_info.name.clone())),
///             None => ToolResult::failure("not called over MCP"),
///         }
///     })
///     .build();
/// ```
pub fn peer() -> Option<Peer<RoleServer>> {
    PEER.try_with(Peer::clone).ok()
}

/// Runs `call` with `peer` as the task's [`peer`]. A plain function, not an `async fn`: that
/// would keep `call` twice in its state, once as its argument and once in the scope.
pub(crate) fn scope<F: Future>(peer: Peer<RoleServer>, call: F) -> impl Future<Output = F::Output> {
    PEER.scope(peer, call)
}
