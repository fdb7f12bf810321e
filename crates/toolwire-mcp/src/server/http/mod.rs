//! Serving over streamable HTTP: a router to mount, and a one-line server.

use std::sync::Arc;

use axum::Router;
use axum::serve::ListenerExt;
use rmcp::transport::streamable_http_server::session::local::LocalSessionManager;
use rmcp::transport::{StreamableHttpServerConfig, StreamableHttpService};
use tokio::net::{TcpListener, ToSocketAddrs};
use tower::Layer;

mod direct;
mod guard;
mod options;
mod priming;
mod recorded;
mod rmcp_rules;
mod users;

use self::direct::Direct;
use self::guard::{Guard, GuardLayer};
pub use self::options::{DEFAULT_MAX_BODY_BYTES, HttpOptions};
pub use self::users::{Users, UsersError, token_sha256};
use super::{Extras, McpServer};

/// An axum router serving `server` at `options.path`, behind toolwire's checks: Host,
/// Origin, bearer token, body size, and well-formed JSON-RPC. Mount it in a larger router
/// with [`Router::merge`], or serve it as it is.
pub fn router<H: Extras>(server: McpServer<H>, options: HttpOptions) -> Router {
    let config = StreamableHttpServerConfig::default()
        .with_sse_retry(options.sse_retry)
        .with_legacy_session_mode(options.stateful)
        .with_json_response(options.json_response)
        .with_max_request_body_bytes(options.max_body_bytes)
        // Toolwire's guard checks Host and Origin, with clear errors, before rmcp sees a
        // request; rmcp's own checks would only repeat them.
        .disable_allowed_hosts();
    let sessions = server.clone();
    let stateful = options.stateful;
    let factory = move || Ok(if stateful { sessions.session() } else { sessions.one_request() });
    let service =
        StreamableHttpService::new(factory, Arc::new(LocalSessionManager::default()), config);
    // The guard wraps rmcp's service itself, not the router's routes: a route is a boxed
    // service, and a layer over it would clone and box it again for every request.
    let guard = GuardLayer::new(Guard::new(&options));
    let router = Router::new();
    if !(options.json_response && options.direct_calls) {
        return router.route_service(&options.path, guard.layer(service));
    }
    // A plain 2026-07-28 `tools/call` answered with JSON needs none of rmcp's per-request
    // service: it is answered in front of it, behind the guard.
    let direct = Direct::new(server, service, options.max_body_bytes);
    // Only the endpoint itself: a path below it (such as OAuth's discovery of
    // `/mcp/.well-known/oauth-protected-resource`) is not found.
    router.route_service(&options.path, guard.layer(direct))
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
///
/// # Cancel safety
///
/// Dropping the future stops accepting: the listener closes. Connections already accepted
/// are served by tasks of their own (axum's), which go on until each connection ends.
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
///
/// # Cancel safety
///
/// Dropping the future stops accepting: the listener closes. Connections already accepted
/// are served by tasks of their own (axum's), which go on until each connection ends.
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
///
/// # Cancel safety
///
/// Dropping the future stops accepting: the listener closes. Connections already accepted
/// are served by tasks of their own (axum's), which go on until each connection ends.
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
