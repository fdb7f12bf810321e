//! [`HttpOptions`]: how the HTTP side is guarded and served.

use std::time::Duration;

/// The largest request body accepted by default: 4 MiB.
pub const DEFAULT_MAX_BODY_BYTES: usize = 4 * 1024 * 1024;

/// How the HTTP side is guarded and served. The defaults are safe for a server on the local
/// machine: loopback hosts and origins only, 4 MiB bodies, stateful sessions.
#[derive(Debug, Clone)]
#[non_exhaustive]
pub struct HttpOptions {
    /// The path the endpoint is served at. Default: `/mcp`.
    pub path: String,
    /// The `Host` values accepted, each a host name or `host:port`. Default: `localhost`,
    /// `127.0.0.1` and `[::1]`, on any port. A request with another `Host` gets 403: this
    /// blocks DNS-rebinding attacks on a local server.
    pub allowed_hosts: Vec<String>,
    /// The `Origin` values accepted, each `scheme://host` or `scheme://host:port`. Default:
    /// `http://localhost`, `http://127.0.0.1` and `http://[::1]` on any port. A request
    /// with another `Origin` gets 403; a request without one (not from a browser) passes.
    pub allowed_origins: Vec<String>,
    /// When set, every request must carry `Authorization: Bearer <token>`; compared in
    /// constant time. A missing or wrong token gets 401.
    pub bearer_token: Option<String>,
    /// Named clients, each with a token of its own: a request with one of their tokens is
    /// that client's, and its calls run as [`Principal::client`](toolwire::Principal::client)
    /// of its name. With a [`bearer_token`](Self#structfield.bearer_token) too, either is
    /// accepted (the shared one with no name). Default: none.
    pub users: Option<super::Users>,
    /// The largest request body accepted; past it, 413. Default: [`DEFAULT_MAX_BODY_BYTES`].
    pub max_body_bytes: usize,
    /// The `retry:` delay sent on SSE streams, so clients know when to reconnect.
    /// Default: 3 s.
    pub sse_retry: Option<Duration>,
    /// Whether sessions keep state between requests (`Mcp-Session-Id`), which
    /// server-to-client requests such as elicitation need. Default: `true`.
    pub stateful: bool,
    /// Whether a request served without a session (every MCP 2026-07-28 request, and every
    /// request when [`stateless`](Self::stateless)) whose call sends nothing before its
    /// result is answered as plain `application/json` rather than as an SSE stream. A call
    /// that sends progress or log messages first still streams. Default: `true`.
    pub json_response: bool,
    /// Whether a plain MCP 2026-07-28 `tools/call` (a first round, not a task, asking for
    /// no progress and no log messages) answered with JSON is answered without rmcp's
    /// per-request service: the same checks and the same reply, without a task and a
    /// transport made for it (about 2.8 times faster). It needs
    /// [`json_response`](Self#structfield.json_response). Default: `true`.
    pub direct_calls: bool,
}

impl Default for HttpOptions {
    fn default() -> Self {
        let loopback = ["localhost", "127.0.0.1", "[::1]"];
        Self {
            path: "/mcp".into(),
            allowed_hosts: loopback.iter().map(|h| (*h).to_owned()).collect(),
            allowed_origins: loopback.iter().map(|h| format!("http://{h}")).collect(),
            bearer_token: None,
            users: None,
            max_body_bytes: DEFAULT_MAX_BODY_BYTES,
            sse_retry: Some(Duration::from_secs(3)),
            stateful: true,
            json_response: true,
            direct_calls: true,
        }
    }
}

impl HttpOptions {
    /// Requires `Authorization: Bearer <token>` on every request.
    pub fn bearer_token(mut self, token: impl Into<String>) -> Self {
        self.bearer_token = Some(token.into());
        self
    }

    /// Requires, on every request, the bearer token of one of `users`, whose name the
    /// request's calls then run as.
    pub fn users(mut self, users: super::Users) -> Self {
        self.users = Some(users);
        self
    }

    /// Accepts these `Host` values instead of the loopback ones.
    pub fn allowed_hosts(mut self, hosts: impl IntoIterator<Item = impl Into<String>>) -> Self {
        self.allowed_hosts = hosts.into_iter().map(Into::into).collect();
        self
    }

    /// Accepts these `Origin` values instead of the loopback ones.
    pub fn allowed_origins(mut self, origins: impl IntoIterator<Item = impl Into<String>>) -> Self {
        self.allowed_origins = origins.into_iter().map(Into::into).collect();
        self
    }

    /// Sets the largest request body accepted.
    pub fn max_body_bytes(mut self, bytes: usize) -> Self {
        self.max_body_bytes = bytes;
        self
    }

    /// Sets the `retry:` delay of SSE streams.
    pub fn sse_retry(mut self, retry: Option<Duration>) -> Self {
        self.sse_retry = retry;
        self
    }

    /// Sets whether a sessionless request whose call streams nothing is answered as plain
    /// JSON (see [`json_response`](Self#structfield.json_response)).
    pub fn json_response(mut self, json: bool) -> Self {
        self.json_response = json;
        self
    }

    /// Answers plain 2026-07-28 calls in front of rmcp, or not (see
    /// [`direct_calls`](Self#structfield.direct_calls)).
    pub fn direct_calls(mut self, direct: bool) -> Self {
        self.direct_calls = direct;
        self
    }

    /// Serves every request statelessly, without sessions.
    pub fn stateless(mut self) -> Self {
        self.stateful = false;
        self
    }
}
