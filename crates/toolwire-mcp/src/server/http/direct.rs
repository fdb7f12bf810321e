//! A plain MCP 2026-07-28 `tools/call`, answered without rmcp's per-request service.
//!
//! Under 2026-07-28 a request stands alone: there is no session, and a request that asks for
//! no progress and no log messages gets nothing before its result. rmcp still serves each
//! request with a service of its own: it spawns a task with a one-shot transport for it,
//! turns the parsed body back into JSON to check the SEP-2243 headers, and reads the result
//! back from a channel. For the requests this layer takes, it makes the same checks on the
//! one parse of the body and runs the call on the connection's own task.
//!
//! It takes a request only when rmcp would serve it, and would serve it this way:
//! - a POST with one `MCP-Protocol-Version: 2026-07-28`, one `Mcp-Method: tools/call`, one
//!   `Mcp-Name`, and no `Mcp-Param-*` or `Mcp-Session-Id` header;
//! - a JSON `Content-Type`, an `Accept` that takes both JSON and an event stream, and the
//!   router set to answer with JSON and to answer such calls itself
//!   ([`HttpOptions::direct_calls`](super::HttpOptions));
//! - a body that is one `tools/call` request, named as in `Mcp-Name`, whose `_meta` names the
//!   same protocol version and the client's capabilities, and has no progress token and no
//!   log level;
//! - a first round (no `requestState`, no `inputResponses`) of a registered tool that does
//!   not run as a task for this client.
//!
//! Anything else goes on to rmcp as it came (the body as read), and rmcp answers it, errors
//! included. A client that goes away drops the call, and its handler with it.

use std::convert::Infallible;
use std::future::Future;
use std::pin::Pin;
use std::task::{Context, Poll, ready};

use axum::body::{Body, Bytes};
use axum::extract::Request;
use axum::response::{IntoResponse, Response};
use http::{HeaderMap, HeaderValue, Method, StatusCode, header};
use http_body_util::{BodyExt, LengthLimitError, Limited};
use rmcp::model::{
    CallToolRequestParams, ClientJsonRpcMessage, ClientRequest, GetMeta, JsonRpcRequest, RequestId,
    RequestMetaObject,
};
use tower::Service;

use super::super::mrtr::Client;
use super::super::{Extras, McpServer, call, trace};
use super::rmcp_rules;
use crate::Revision;

/// The revision this layer answers.
const VERSION: Revision = Revision::V2026_07_28;

/// rmcp's service, with plain 2026-07-28 `tools/call`s answered in front of it.
pub(crate) struct Direct<S, H> {
    server: McpServer<H>,
    inner: S,
    max_body: usize,
}

impl<S, H> Direct<S, H> {
    /// `inner` behind the layer, for `server`'s calls, with bodies of at most `max_body`.
    pub(crate) fn new(server: McpServer<H>, inner: S, max_body: usize) -> Self {
        Self { server, inner, max_body }
    }
}

impl<S: Clone, H> Clone for Direct<S, H> {
    fn clone(&self) -> Self {
        Self { server: self.server.clone(), inner: self.inner.clone(), max_body: self.max_body }
    }
}

impl<S, H, B> Service<Request> for Direct<S, H>
where
    S: Service<Request, Response = http::Response<B>, Error = Infallible> + Clone + Send + 'static,
    S::Future: Send + 'static,
    B: http_body::Body<Data = Bytes> + Send + 'static,
    B::Error: Into<axum::BoxError>,
    H: Extras,
{
    type Response = Response;
    type Error = Infallible;
    type Future = Directing<S::Future>;

    fn poll_ready(&mut self, cx: &mut Context<'_>) -> Poll<Result<(), Infallible>> {
        self.inner.poll_ready(cx)
    }

    fn call(&mut self, request: Request) -> Directing<S::Future> {
        if !may_take(request.method(), request.headers()) {
            return Directing::Passed { inner: self.inner.call(request) };
        }
        // The service made ready is the one that serves a request passed on.
        let fresh = self.inner.clone();
        let inner = std::mem::replace(&mut self.inner, fresh);
        let server = self.server.clone();
        Directing::Taken { future: Box::pin(answer(server, inner, request, self.max_body)) }
    }
}

pin_project_lite::pin_project! {
    /// The response of a request this layer passed on, or answered.
    #[project = DirectingProj]
    pub(crate) enum Directing<F> {
        Passed { #[pin] inner: F },
        Taken { future: Pin<Box<dyn Future<Output = Response> + Send>> },
    }
}

impl<F, B> Future for Directing<F>
where
    F: Future<Output = Result<http::Response<B>, Infallible>>,
    B: http_body::Body<Data = Bytes> + Send + 'static,
    B::Error: Into<axum::BoxError>,
{
    type Output = Result<Response, Infallible>;

    fn poll(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<Self::Output> {
        match self.project() {
            DirectingProj::Passed { inner } => {
                let Ok(response) = ready!(inner.poll(cx));
                Poll::Ready(Ok(response.map(Body::new)))
            }
            DirectingProj::Taken { future } => future.as_mut().poll(cx).map(Ok),
        }
    }
}

/// Whether the request's method and headers are those of a plain 2026-07-28 `tools/call`;
/// its body is read only then.
fn may_take(method: &Method, headers: &HeaderMap) -> bool {
    method == Method::POST
        && only(headers, "mcp-protocol-version").is_some_and(|v| v == VERSION.as_str())
        && only(headers, "mcp-method").is_some_and(|v| v == "tools/call")
        && only(headers, "mcp-name").is_some()
        && !headers.contains_key("mcp-session-id")
        && !headers.keys().any(|name| name.as_str().starts_with("mcp-param-"))
        && only(headers, header::CONTENT_TYPE.as_str()).is_some_and(is_json)
        && accepts_json_and_events(headers)
}

/// The one value of a header; `None` when it is absent, repeated, or not visible ASCII.
fn only<'h>(headers: &'h HeaderMap, name: &str) -> Option<&'h str> {
    let mut values = headers.get_all(name).iter();
    let value = values.next()?;
    if values.next().is_some() {
        return None;
    }
    value.to_str().ok()
}

/// Whether a media type is JSON, parameters aside.
fn is_json(media_type: &str) -> bool {
    let essence = media_type.split(';').next().unwrap_or_default();
    essence.trim().eq_ignore_ascii_case("application/json")
}

/// Whether `Accept` names both JSON and an event stream, with no weights to read: a request
/// with any weight or wildcard is left to rmcp, which reads them.
fn accepts_json_and_events(headers: &HeaderMap) -> bool {
    let (mut json, mut events) = (false, false);
    for value in headers.get_all(header::ACCEPT) {
        let Ok(value) = value.to_str() else { return false };
        for item in value.split(',') {
            let item = item.trim();
            if item.contains(';') || item.contains('*') {
                return false;
            }
            json |= item.eq_ignore_ascii_case("application/json");
            events |= item.eq_ignore_ascii_case("text/event-stream");
        }
    }
    json && events
}

/// Reads the body, and answers it if it is a plain `tools/call`; passes it on to `inner`
/// otherwise.
async fn answer<S, H, B>(
    server: McpServer<H>,
    mut inner: S,
    request: Request,
    max: usize,
) -> Response
where
    S: Service<Request, Response = http::Response<B>, Error = Infallible>,
    B: http_body::Body<Data = Bytes> + Send + 'static,
    B::Error: Into<axum::BoxError>,
    H: Extras,
{
    let (parts, body) = request.into_parts();
    let bytes = match Limited::new(body, max).collect().await {
        Ok(collected) => collected.to_bytes(),
        // The guard in front words the refusal.
        Err(error) if error.is::<LengthLimitError>() => {
            return StatusCode::PAYLOAD_TOO_LARGE.into_response();
        }
        Err(error) => {
            let message = format!("the request body could not be read: {error}");
            return (StatusCode::BAD_REQUEST, message).into_response();
        }
    };
    match plain_call(&server, &parts.headers, &bytes) {
        Some(plain) => plain.run(&server, &parts).await,
        None => {
            let request = Request::from_parts(parts, Body::from(bytes));
            match inner.call(request).await {
                Ok(response) => response.map(Body::new),
                Err(never) => match never {},
            }
        }
    }
}

/// A plain `tools/call`, parsed and checked.
struct Plain {
    id: RequestId,
    params: CallToolRequestParams,
    meta: RequestMetaObject,
}

/// The body as a plain `tools/call` of a tool of `server`'s, if it is one.
fn plain_call<H>(server: &McpServer<H>, headers: &HeaderMap, body: &[u8]) -> Option<Plain> {
    let message: ClientJsonRpcMessage = serde_json::from_slice(body).ok()?;
    let ClientJsonRpcMessage::Request(JsonRpcRequest { id, mut request, .. }) = message else {
        return None;
    };
    let meta = std::mem::take(request.get_meta_mut());
    let ClientRequest::CallToolRequest(call) = request else { return None };
    let params = call.params;
    let named = only(headers, "mcp-name") == Some(params.name.as_ref());
    let first_round = params.request_state.is_none() && params.input_responses.is_none();
    let version = meta.protocol_version();
    let quiet = !meta.contains_key("progressToken")
        && !meta.contains_key("io.modelcontextprotocol/logLevel");
    if !(named && first_round && quiet && version.is_some_and(|v| v.as_str() == VERSION.as_str())) {
        return None;
    }
    // The capabilities are required of a 2026-07-28 request; rmcp words their absence.
    let capabilities = meta.client_capabilities()?;
    let tool = server.shared.registry.get(&params.name)?;
    // A tool that must be a task goes to rmcp either way: as a task, or refused.
    let as_task = call::runs_as_task(tool.task_support(), || capabilities.supports_tasks());
    (as_task == Some(false)).then_some(Plain { id, params, meta })
}

impl Plain {
    /// Runs the call, and answers with its JSON-RPC response, as rmcp would word it.
    async fn run<H: Extras>(self, server: &McpServer<H>, parts: &http::request::Parts) -> Response {
        let Self { id, params, meta } = self;
        let tool = params.name.clone();
        let client = Asking { meta: &meta, headers: &parts.headers, extensions: &parts.extensions };
        // Each request is a session of its own, as rmcp's service would make it.
        let session = server.session();
        let call = call::call_plain(&session, params, &id, &client);
        let version = || Some(VERSION.as_str().to_owned());
        let response = match trace::call_span(&tool, version, &meta) {
            Some((span, version)) => trace::observed(span, &tool, version.as_deref(), call).await,
            None => call.await,
        };
        let (message, status) = match response {
            Ok(response) => (rmcp_rules::result_message(response, id), StatusCode::OK),
            Err(error) => rmcp_rules::error_message(error, id),
        };
        match serde_json::to_vec(&message) {
            Ok(body) => {
                let json = HeaderValue::from_static("application/json");
                (status, [(header::CONTENT_TYPE, json)], body).into_response()
            }
            Err(error) => {
                let message = format!("the response could not be written: {error}");
                (StatusCode::INTERNAL_SERVER_ERROR, message).into_response()
            }
        }
    }
}

/// The client of a plain call: its request's `_meta` and headers.
struct Asking<'a> {
    meta: &'a RequestMetaObject,
    headers: &'a HeaderMap,
    /// Where the guard put the named client the request's token proved.
    extensions: &'a http::Extensions,
}

impl Client for Asking<'_> {
    fn capabilities(&self) -> rmcp::model::ClientCapabilities {
        self.meta.client_capabilities().unwrap_or_default()
    }

    fn credential(&self) -> Option<&[u8]> {
        self.headers.get(header::AUTHORIZATION).map(HeaderValue::as_bytes)
    }

    fn principal(&self) -> Option<toolwire::Principal> {
        self.extensions.get::<toolwire::Principal>().cloned()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn headers(pairs: &[(&'static str, &'static str)]) -> HeaderMap {
        let mut map = HeaderMap::new();
        for (name, value) in pairs {
            map.append(*name, HeaderValue::from_static(value));
        }
        map
    }

    const PLAIN: [(&str, &str); 5] = [
        ("mcp-protocol-version", "2026-07-28"),
        ("mcp-method", "tools/call"),
        ("mcp-name", "echo"),
        ("content-type", "application/json"),
        ("accept", "application/json, text/event-stream"),
    ];

    #[test]
    fn only_a_plain_call_s_headers_are_taken() {
        assert!(may_take(&Method::POST, &headers(&PLAIN)));
        assert!(!may_take(&Method::GET, &headers(&PLAIN)));
        let changed: [(&str, &str); 6] = [
            ("mcp-protocol-version", "2025-11-25"),
            ("mcp-method", "tools/list"),
            ("content-type", "text/plain"),
            ("accept", "application/json"),
            ("accept", "application/json;q=1, text/event-stream"),
            ("accept", "*/*"),
        ];
        for (name, value) in changed {
            let mut map = headers(&PLAIN);
            map.insert(name, HeaderValue::from_static(value));
            assert!(!may_take(&Method::POST, &map), "{name}: {value}");
        }
        for (name, value) in [
            ("mcp-name", "echo"),
            ("mcp-session-id", "s"),
            ("mcp-param-region", "eu"),
            ("mcp-method", "tools/call"),
        ] {
            let mut map = headers(&PLAIN);
            map.append(name, HeaderValue::from_static(value));
            assert!(!may_take(&Method::POST, &map), "another {name}");
        }
    }
}
