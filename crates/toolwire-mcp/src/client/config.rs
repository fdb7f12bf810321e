//! [`McpConfig`]: the list of MCP servers, read from an `mcp.json` in the shape editors use.

use std::collections::BTreeMap;
use std::path::PathBuf;

use super::oauth_settings::OAuthSettings;

/// The MCP servers to import tools from, as editors list them in `mcp.json`:
///
/// ```json
/// {"mcpServers": {
///     "files": {"command": "npx", "args": ["-y", "@modelcontextprotocol/server-filesystem", "."],
///               "env": {"DEBUG": "1"}},
///     "search": {"url": "http://127.0.0.1:8080/mcp", "headers": {"Authorization": "Bearer t"}}
/// }}
/// ```
///
/// A server has a `command` (a child process spoken to over stdio) or a `url` (streamable
/// HTTP), not both. An optional `type` (`"stdio"`, `"http"` or `"streamable-http"`) must agree.
/// A server with `"disabled": true` is left out. Other fields are ignored.
///
/// ```
/// use toolwire_mcp::client::{McpConfig, ServerSpec};
///
/// let config = McpConfig::from_json(r#"{"mcpServers": {
///     "files": {"command": "mcp-files", "args": ["--root", "."]},
///     "search": {"url": "http://127.0.0.1:8080/mcp"}
/// }}"#)?;
/// assert!(matches!(config.get("files"), Some(ServerSpec::Stdio(s)) if s.args == ["--root", "."]));
/// assert!(matches!(config.get("search"), Some(ServerSpec::Http(h)) if h.url.ends_with("/mcp")));
/// # Ok::<(), toolwire_mcp::client::ConfigError>(())
/// ```
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct McpConfig {
    servers: BTreeMap<String, ServerSpec>,
}

/// How to reach one MCP server: the entry of an `mcp.json` under its name.
#[non_exhaustive]
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ServerSpec {
    /// A child process, spoken to over its stdin and stdout.
    Stdio(StdioConfig),
    /// A streamable HTTP endpoint.
    Http(HttpConfig),
}

/// A server started as a child process: `command args..`, with `env` added to the
/// environment it inherits. Its stderr is passed through to this process's, so its logs stay
/// visible; it is stopped when the connection closes.
#[non_exhaustive]
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct StdioConfig {
    /// The program to run, looked up in `PATH` when it has no slash.
    pub command: String,
    /// Its arguments.
    pub args: Vec<String>,
    /// Environment variables set for it, on top of the inherited ones (or of none, with
    /// [`clear_env`](Self::clear_env)).
    pub env: BTreeMap<String, String>,
    /// Starts it with no inherited environment: it sees `env` only.
    pub clear_env: bool,
    /// The directory to run it in; the current one when `None`.
    pub cwd: Option<PathBuf>,
}

/// A server reached over streamable HTTP.
#[non_exhaustive]
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct HttpConfig {
    /// The endpoint, for example `http://127.0.0.1:8080/mcp`.
    pub url: String,
    /// Headers sent with every request, for example `Authorization`.
    pub headers: BTreeMap<String, String>,
    /// How to log in to it, when it needs OAuth and something about the login must be set
    /// (a client id, scopes). A server without settings can still be logged in to.
    pub oauth: Option<OAuthSettings>,
}

impl McpConfig {
    /// An empty list; add servers with [`McpConfig::insert`].
    pub fn new() -> Self {
        Self::default()
    }

    /// Adds or replaces the server called `name`.
    pub fn insert(&mut self, name: impl Into<String>, server: ServerSpec) -> &mut Self {
        self.servers.insert(name.into(), server);
        self
    }

    /// The server called `name`, if listed.
    pub fn get(&self, name: &str) -> Option<&ServerSpec> {
        self.servers.get(name)
    }

    /// Every server, by name in sorted order.
    pub fn servers(&self) -> impl ExactSizeIterator<Item = (&str, &ServerSpec)> {
        self.servers.iter().map(|(name, server)| (name.as_str(), server))
    }

    /// How many servers are listed.
    pub fn len(&self) -> usize {
        self.servers.len()
    }

    /// Whether no server is listed.
    pub fn is_empty(&self) -> bool {
        self.servers.is_empty()
    }
}

impl StdioConfig {
    /// Runs `command` with no arguments and the inherited environment.
    pub fn new(command: impl Into<String>) -> Self {
        Self { command: command.into(), ..Self::default() }
    }

    /// Adds an argument.
    pub fn arg(mut self, arg: impl Into<String>) -> Self {
        self.args.push(arg.into());
        self
    }

    /// Sets an environment variable for the child.
    pub fn env(mut self, key: impl Into<String>, value: impl Into<String>) -> Self {
        self.env.insert(key.into(), value.into());
        self
    }

    /// Starts the child with only the variables set with [`env`](Self::env), none inherited.
    pub fn clear_env(mut self) -> Self {
        self.clear_env = true;
        self
    }
}

impl HttpConfig {
    /// Reaches the endpoint at `url`, with no extra headers.
    pub fn new(url: impl Into<String>) -> Self {
        Self { url: url.into(), ..Self::default() }
    }

    /// Adds a header sent with every request.
    pub fn header(mut self, name: impl Into<String>, value: impl Into<String>) -> Self {
        self.headers.insert(name.into(), value.into());
        self
    }

    /// Logs in to the server with OAuth, as `settings` say.
    pub fn oauth(mut self, settings: OAuthSettings) -> Self {
        self.oauth = Some(settings);
        self
    }
}

impl From<StdioConfig> for ServerSpec {
    fn from(config: StdioConfig) -> Self {
        Self::Stdio(config)
    }
}

impl From<HttpConfig> for ServerSpec {
    fn from(config: HttpConfig) -> Self {
        Self::Http(config)
    }
}
