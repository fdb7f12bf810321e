//! Extras: an rmcp handler that serves what is not toolwire's business — resources, prompts
//! and completions — next to a registry's tools.

use rmcp::ServerHandler;

/// An rmcp [`ServerHandler`] whose resources, prompts, resource templates, subscriptions and
/// completions an [`McpServer`](super::McpServer) serves beside its tools. Its tool methods
/// are never called: the registry answers those.
///
/// Any `ServerHandler` that is `Send + Sync + 'static` is one; the capabilities its
/// `get_info` declares for resources, prompts and completions are merged into the server's.
pub trait Extras: ServerHandler + Send + Sync + 'static {}

impl<T: ServerHandler + Send + Sync + 'static> Extras for T {}

/// No extras: the server offers tools (and logging) only.
#[derive(Debug, Clone, Copy, Default)]
pub struct NoExtras;

impl ServerHandler for NoExtras {}
