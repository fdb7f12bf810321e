//! Serving over streamable HTTP: a router to mount, and a one-line server.

use std::sync::Arc;
use std::time::Duration;

use axum::Router;
use axum::serve::ListenerExt;
use rmcp::transport::streamable_http_server::session::local::LocalSessionManager;
use rmcp::transport::{StreamableHttpServerConfig, StreamableHttpService};
use tokio::net::{TcpListener, ToSocketAddrs};

use super::guard::{Guard, guard};
use super::{Extras, McpServer};

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
    /// The largest request body accepted; past it, 413. Default: [`DEFAULT_MAX_BODY_BYTES`].
    pub max_body_bytes: usize,
    /// The `retry:` delay sent on SSE streams, so clients know when to reconnect.
    /// Default: 3 s.
    pub sse_retry: Option<Duration>,
    /// Whether sessions keep state between requests (`Mcp-Session-Id`), which
    /// server-to-client requests such as elicitation need. Default: `true`.
    pub stateful: bool,
}

impl Default for HttpOptions {
    fn default() -> Self {
        let loopback = ["localhost", "127.0.0.1", "[::1]"];
        Self {
            path: "/mcp".into(),
            allowed_hosts: loopback.iter().map(|h| (*h).to_owned()).collect(),
            allowed_origins: loopback.iter().map(|h| format!("http://{h}")).collect(),
            bearer_token: None,
            max_body_bytes: DEFAULT_MAX_BODY_BYTES,
            sse_retry: Some(Duration::from_secs(3)),
            stateful: true,
        }
    }
}

impl HttpOptions {
    /// Requires `Authorization: Bearer <token>` on every request.
    pub fn bearer_token(mut self, token: impl Into<String>) -> Self {
        self.bearer_token = Some(token.into());
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

    /// Serves every request statelessly, without sessions.
    pub fn stateless(mut self) -> Self {
        self.stateful = false;
        self
    }
}

/// An axum router serving `server` at `options.path`, behind toolwire's checks: Host,
/// Origin, bearer token, body size, and well-formed JSON-RPC. Mount it in a larger router
/// with [`Router::merge`], or serve it as it is.
pub fn router<H: Extras>(server: McpServer<H>, options: HttpOptions) -> Router {
    let config = StreamableHttpServerConfig::default()
        .with_sse_retry(options.sse_retry)
        .with_legacy_session_mode(options.stateful)
        .with_max_request_body_bytes(options.max_body_bytes)
        // Toolwire's guard checks Host and Origin, with clear errors, before rmcp sees a
        // request; rmcp's own checks would only repeat them.
        .disable_allowed_hosts();
    let factory = move || Ok(server.session());
    let service =
        StreamableHttpService::new(factory, Arc::new(LocalSessionManager::default()), config);
    let guard_state = Arc::new(Guard::new(&options));
    Router::new()
        .nest_service(&options.path, service)
        .layer(axum::middleware::from_fn_with_state(guard_state, guard))
}

/// Serves `server` over streamable HTTP at `addr`, path `/mcp`, with the default
/// [`HttpOptions`], until the process ends. Bind `127.0.0.1` unless the server must be
/// reached from elsewhere (then set its hosts and origins with [`serve_http_with`]).
///
/// Every accepted connection has `TCP_NODELAY` set: a streamable-HTTP response goes out in
/// several small writes, which Nagle's algorithm and delayed ACKs would otherwise hold for
/// about 40 ms each on a keep-alive connection.
///
/// # Errors
///
/// The I/O error of binding the address or of serving.
pub async fn serve_http<H: Extras>(
    server: McpServer<H>,
    addr: impl ToSocketAddrs,
) -> std::io::Result<()> {
    serve_http_with(server, addr, HttpOptions::default()).await
}

/// [`serve_http`] with `options`.
///
/// # Errors
///
/// The I/O error of binding the address or of serving.
pub async fn serve_http_with<H: Extras>(
    server: McpServer<H>,
    addr: impl ToSocketAddrs,
    options: HttpOptions,
) -> std::io::Result<()> {
    let listener = TcpListener::bind(addr).await?;
    serve_on(listener, server, options).await
}

/// Serves on a listener already bound, for tests and hosts that pick the port.
///
/// # Errors
///
/// The I/O error of serving.
pub async fn serve_on<H: Extras>(
    listener: TcpListener,
    server: McpServer<H>,
    options: HttpOptions,
) -> std::io::Result<()> {
    let listener = listener.tap_io(|tcp| {
        if let Err(error) = tcp.set_nodelay(true) {
            tracing::debug!(%error, "TCP_NODELAY could not be set");
        }
    });
    axum::serve(listener, router(server, options)).await
}
