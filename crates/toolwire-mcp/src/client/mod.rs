//! Importing MCP servers' tools as toolwire [`Tool`](toolwire::Tool)s.
//!
//! Connect to a server over stdio (a child process) or streamable HTTP, as an
//! [`McpConfig`] (read from the `mcp.json` editors use) or a [`ServerSpec`] says, then
//! [`import`](RemoteServer::import) the tools of the [`RemoteServer`] you get. Each becomes
//! a toolwire tool named `server__tool` (made provider-safe), so validation, authorization,
//! policy, receipts and dispatch apply to it as to a local tool. A call to it:
//!
//! - reports the server's progress notifications as the call's events
//!   (`{"type": "progress", "progress", "total"?, "message"?}`);
//! - cancels the request when it is aborted or dropped: `notifications/cancelled` on
//!   2025-11-25; on 2026-07-28, where cancelling is closing the request's stream, the stream
//!   is closed;
//! - on 2026-07-28 over HTTP, is one POST sent from the calling task on the connection's
//!   pooled client (not through rmcp's service loop and transport worker), unless the tool
//!   asks for `Mcp-Param-*` headers or its name must be encoded, which rmcp handles; a
//!   stream that ends before the result is resumed by GET with `Last-Event-ID`;
//! - fails as timed out when the server sends nothing for the
//!   [idle timeout](ClientOptions::idle_timeout) (progress resets it) or runs past the
//!   [cap](ClientOptions::max_duration);
//! - fails closed when the server changed the tool's definition since it was pinned, until the
//!   host [accepts](RemoteServer::accept) the change (see [`RemoteServer`]);
//! - maps the reply: `isError: true` is a failure with its text; a success carries
//!   `structuredContent` (or the content blocks as JSON) and the text of the text blocks; a
//!   JSON-RPC error or a dead server is a failure that says so;
//! - on MCP 2026-07-28 (the default, falling back to 2025-11-25 for older servers; see
//!   [`ClientOptions::protocol_version`]), answers a server's `InputRequiredResult`: with an
//!   [elicitation handler](ClientOptions::on_elicitation), at once, within the call; without
//!   one, the server's question becomes a pending result whose
//!   [`Request`](toolwire::Request) the host's own approval flow answers (a prompt, the
//!   journal, an agent's pending run), and the call retried with that answer sends the
//!   `inputResponses` and the server's `requestState`. The state waits in memory, per call;
//!   a retry that finds none (another process, or a restart) starts the call over, and its
//!   answer answers the first question the server asks again;
//! - on 2026-07-28, declares the tasks extension (SEP-2663) and follows a call the server
//!   makes a task: `tasks/get` at the interval the server suggests (50 ms to 5 s), its status
//!   message passed on as progress, until it completes, fails or is cancelled, within the
//!   call's [`max_duration`](ClientOptions::max_duration); the task's questions are answered
//!   as a call's are, with `tasks/update`; aborting or dropping the call sends `tasks/cancel`.
//!
//! ```no_run
//! use serde_json::json;
//! use toolwire::Registry;
//! use toolwire_mcp::client::{ClientOptions, McpConfig, RemoteServer};
//!
//! # #[tokio::main] async fn main() -> Result<(), Box<dyn std::error::Error>> {
//! let config = McpConfig::from_json(r#"{"mcpServers": {
//!     "calc": {"command": "mcp-calculator"},
//!     "search": {"url": "http://127.0.0.1:8080/mcp", "headers": {"Authorization": "Bearer t"}}
//! }}"#)?;
//! let mut registry = Registry::builder();
//! for (name, server) in config.servers() {
//!     let server = RemoteServer::connect(name, server, ClientOptions::new()).await?;
//!     let import = server.import();
//!     for skipped in &import.skipped {
//!         eprintln!("skipped {}: {}", skipped.tool, skipped.reason);
//!     }
//!     registry = registry.register_all(import.tools);
//! }
//! let registry = registry.seal()?;
//! let receipt = registry.invoke("calc__add", json!({"a": 1, "b": 2})).await;
//! println!("{}", receipt.result.text().unwrap_or_default());
//! # Ok(()) }
//! ```

mod call;
mod catalog;
#[cfg(feature = "stdio")]
mod child;
mod config;
mod config_error;
mod config_parse;
mod connect;
mod connection;
#[cfg(feature = "client-http")]
mod direct;
mod elicit;
mod error;
mod handler;
mod headers;
#[cfg(feature = "client-http")]
mod http_client;
mod import;
mod input;
mod meta;
#[cfg(feature = "auth")]
pub mod oauth;
mod oauth_settings;
mod options;
#[cfg(feature = "stdio")]
mod oversize;
mod pin;
mod progress;
mod remote;
mod result;
#[cfg(feature = "client-http")]
mod sse;
mod task;

pub use config::{HttpConfig, McpConfig, ServerSpec, StdioConfig};
pub use config_error::{ConfigError, ConfigErrorKind};
pub use elicit::{Elicitation, ElicitationFuture, ElicitationReply};
pub use error::{ConnectError, ConnectErrorKind};
pub use import::{Import, ImportOptions, Pin, Skipped};
pub use oauth_settings::OAuthSettings;
pub use options::{
    ClientOptions, DEFAULT_CONNECT_TIMEOUT, DEFAULT_IDLE_TIMEOUT, DEFAULT_MAX_DURATION,
    DEFAULT_MAX_IN_FLIGHT, DEFAULT_MAX_RESULT_BYTES, DEFAULT_POOL_IDLE_TIMEOUT,
    DEFAULT_PROTOCOL_VERSION,
};
pub use pin::{Change, Drift};
pub use remote::RemoteServer;
