//! An `[mcp_servers.NAME]` table, as written.

use std::collections::BTreeMap;

use serde::Deserialize;
use toml::Spanned;

use super::sandbox::SandboxSpec;

/// One `[mcp_servers.NAME]` table.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub(crate) struct McpServerSpec {
    /// A server started as a child process, spoken to over stdio: the program.
    pub(crate) command: Option<Spanned<String>>,
    /// Its arguments.
    #[serde(default)]
    pub(crate) args: Vec<String>,
    /// The environment variables it may see; every other one is removed.
    #[serde(default)]
    pub(crate) env: Vec<String>,
    /// The folder it runs in, relative to the manifest's.
    pub(crate) cwd: Option<String>,
    /// A streamable-HTTP server: its endpoint.
    pub(crate) url: Option<Spanned<String>>,
    /// Headers sent to it, each read from the environment variable named here.
    #[serde(default)]
    pub(crate) headers: BTreeMap<String, String>,
    /// The names its tools get: `{prefix}{tool}`; `NAME__` by default.
    pub(crate) prefix: Option<Spanned<String>>,
    /// Only the tools matching one of these globs are imported.
    #[serde(default)]
    pub(crate) allow: Vec<Spanned<String>>,
    /// The tools matching one of these globs are not.
    #[serde(default)]
    pub(crate) deny: Vec<Spanned<String>>,
    /// `true` for every tool, or the tools (their names on the server) a human approves first.
    pub(crate) needs_approval: Option<Spanned<ApprovalSpec>>,
    /// New tools are imported (and pinned) without `toolwire mcp accept`.
    #[serde(default)]
    pub(crate) accept_new: bool,
    /// The longest a call may take, such as `"30s"`.
    pub(crate) timeout: Option<Spanned<String>>,
    /// At most this many calls of its tools run at once.
    pub(crate) concurrency: Option<Spanned<u32>>,
    /// The largest result a call may return, in bytes of JSON (1 MiB by default).
    pub(crate) output_limit: Option<Spanned<u64>>,
    /// The MCP revision offered: `"2026-07-28"` (the default) or an older one, such as
    /// `"2025-11-25"`.
    pub(crate) protocol: Option<Spanned<String>>,
    /// The sandbox a server started over stdio runs in: `"none"`, or a table as a command
    /// tool's; the default sandbox when absent (with no CPU-time limit: a server lives as
    /// long as its session).
    pub(crate) sandbox: Option<Spanned<SandboxSpec>>,
    /// What the manifest says of the tools, in place of what the server claims.
    pub(crate) read_only: Option<bool>,
    /// The tools may destroy or overwrite things.
    pub(crate) destructive: Option<bool>,
    /// Calling a tool again with the same arguments has no further effect.
    pub(crate) idempotent: Option<bool>,
    /// The tools reach an open world.
    pub(crate) open_world: Option<bool>,
    /// What becomes of the server's own questions (elicitations): `"ask"` (the default)
    /// hands them to whoever answers toolwire's own, or `"decline"`.
    pub(crate) questions: Option<Spanned<String>>,
    /// `true` defers every tool of the server: a model is shown it once a search of its run
    /// finds it; `false` loads every one always, past the manifest's `defer_threshold`.
    pub(crate) defer_loading: Option<bool>,
    /// How to log in to a server over HTTP that needs OAuth (`toolwire mcp login NAME`).
    pub(crate) oauth: Option<Spanned<OAuthSpec>>,
}

/// `oauth = { client_id = "…", scopes = […] }`: what a login needs to be told; every field
/// optional. A client secret is read from a variable, never written in the manifest.
#[derive(Debug, Default, Deserialize)]
#[serde(deny_unknown_fields)]
pub(crate) struct OAuthSpec {
    /// A client id registered with the authorization server beforehand.
    pub(crate) client_id: Option<String>,
    /// The variable holding that client's secret.
    pub(crate) client_secret_env: Option<String>,
    /// The scopes to ask for.
    #[serde(default)]
    pub(crate) scopes: Vec<String>,
    /// This client's Client ID Metadata Document (an https address).
    pub(crate) client_metadata_url: Option<String>,
    /// The loopback port the login's redirect comes back to.
    pub(crate) redirect_port: Option<u16>,
    /// Other hosts the authorization server's endpoints may be on.
    #[serde(default)]
    pub(crate) trusted_hosts: Vec<String>,
}

/// `needs_approval`: every tool, or some.
#[derive(Debug, Deserialize)]
#[serde(untagged)]
pub(crate) enum ApprovalSpec {
    All(bool),
    Tools(Vec<String>),
}
