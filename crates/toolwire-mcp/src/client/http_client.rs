//! The HTTP client of a connection to a server over streamable HTTP: HTTP/1.1 connections
//! kept and reused (rmcp's own default client opens one per request), and rmcp's redirect
//! rule kept. HTTP/2 is not built in (reqwest's `http2` feature is off): a server that
//! offers it is reached over HTTP/1.1.

use std::time::Duration;

use super::options::ClientOptions;

/// How many redirects a request follows.
const MAX_REDIRECTS: usize = 10;

/// A pooled client for one server's connection, as `options` size its pool.
///
/// # Errors
///
/// reqwest's message when the client cannot be built (no TLS provider, say).
pub(crate) fn pooled(options: &ClientOptions) -> Result<reqwest::Client, String> {
    reqwest::Client::builder()
        .pool_max_idle_per_host(options.pool_idle)
        .pool_idle_timeout(options.pool_idle_timeout)
        .tcp_nodelay(true)
        .tcp_keepalive(Duration::from_secs(30))
        .redirect(same_origin_redirects())
        .build()
        .map_err(|error| format!("cannot build the HTTP client: {error}"))
}

/// rmcp's rule for its own client (`same_origin_redirect_policy` in
/// `transport/common/reqwest/streamable_http_client.rs`, rmcp 3.11), kept for ours: only
/// same-origin 307 and 308 redirects are followed, which keep the method and the JSON-RPC
/// body; a 301, 302 or 303 would turn the POST into a GET without its message, and another
/// origin would receive the session id and the configured headers, so both are handed back
/// as the response.
fn same_origin_redirects() -> reqwest::redirect::Policy {
    reqwest::redirect::Policy::custom(|attempt| {
        let keeps_body = matches!(
            attempt.status(),
            reqwest::StatusCode::TEMPORARY_REDIRECT | reqwest::StatusCode::PERMANENT_REDIRECT
        );
        let same_origin = attempt
            .previous()
            .first()
            .is_some_and(|first| first.origin() == attempt.url().origin());
        if !keeps_body || !same_origin {
            attempt.stop()
        } else if attempt.previous().len() > MAX_REDIRECTS {
            attempt.error(format!("more than {MAX_REDIRECTS} redirects"))
        } else {
            attempt.follow()
        }
    })
}
