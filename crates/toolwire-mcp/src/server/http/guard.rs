//! The checks every HTTP request passes: Host, Origin and bearer token before rmcp sees it;
//! body size, and a body that is JSON-RPC, as rmcp reads it, with clear JSON-RPC errors.

use std::convert::Infallible;
use std::future::Future;
use std::pin::Pin;
use std::sync::Arc;
use std::task::{Context, Poll, ready};

use axum::body::{Body, Bytes};
use axum::extract::Request;
use axum::response::{IntoResponse, Response};
use http::uri::{Authority, Uri};
use http::{HeaderMap, Method, StatusCode, header};
use serde_json::{Value, json};
use subtle::ConstantTimeEq;
use toolwire::Principal;
use tower::{Layer, Service};

use super::options::HttpOptions;
use super::priming::{WithoutPriming, reads_priming};
use super::recorded::{Record, Recorded};

/// The guard's settings, shared by every request.
#[derive(Debug)]
pub(crate) struct Guard {
    hosts: Vec<HostPort>,
    origins: Vec<(String, HostPort)>,
    token: Option<Vec<u8>>,
    users: Option<super::Users>,
    max_body: usize,
}

/// A host and, when it was given, a port.
#[derive(Debug, PartialEq)]
struct HostPort {
    host: String,
    port: Option<u16>,
}

impl Guard {
    pub(crate) fn new(options: &HttpOptions) -> Self {
        let hosts = options.allowed_hosts.iter().filter_map(|h| host_port(h)).collect();
        let origins = options.allowed_origins.iter().filter_map(|o| origin(o)).collect();
        let token = options.bearer_token.as_ref().map(|t| t.as_bytes().to_vec());
        let users = options.users.clone();
        Self { hosts, origins, token, users, max_body: options.max_body_bytes }
    }

    /// Whether the `Host` header names an allowed host.
    fn host_allowed(&self, headers: &HeaderMap) -> bool {
        let Some(host) = text(headers, header::HOST).and_then(host_port) else { return false };
        self.hosts.iter().any(|allowed| matches(allowed, &host))
    }

    /// Whether the `Origin` header, if any, is an allowed origin.
    fn origin_allowed(&self, headers: &HeaderMap) -> bool {
        let Some(value) = headers.get(header::ORIGIN) else { return true };
        let Some((scheme, found)) = value.to_str().ok().and_then(origin) else { return false };
        self.origins.iter().any(|(s, allowed)| *s == scheme && matches(allowed, &found))
    }

    /// The named client whose token the request carries, if any.
    fn client(&self, headers: &HeaderMap) -> Option<Principal> {
        let users = self.users.as_ref()?;
        let given = text(headers, header::AUTHORIZATION).and_then(|v| v.strip_prefix("Bearer "))?;
        users.verify(given).map(Principal::client)
    }

    /// The refusal of a request whose headers fail a check: Host, then Origin, then the
    /// bearer token.
    fn refusal(&self, headers: &HeaderMap) -> Option<Response> {
        if !self.host_allowed(headers) {
            return Some(rejection(
                StatusCode::FORBIDDEN,
                -32600,
                "the Host header is not allowed",
            ));
        }
        if !self.origin_allowed(headers) {
            let message = "the Origin header is not allowed";
            return Some(rejection(StatusCode::FORBIDDEN, -32600, message));
        }
        if !self.token_ok(headers) {
            let mut response =
                rejection(StatusCode::UNAUTHORIZED, -32600, "a valid bearer token is required");
            response
                .headers_mut()
                .insert(header::WWW_AUTHENTICATE, http::HeaderValue::from_static("Bearer"));
            return Some(response);
        }
        None
    }

    /// Whether the request carries the shared bearer token or a named client's, when one
    /// is required.
    fn token_ok(&self, headers: &HeaderMap) -> bool {
        if self.token.is_none() && self.users.is_none() {
            return true;
        }
        let given = text(headers, header::AUTHORIZATION).and_then(|v| v.strip_prefix("Bearer "));
        let Some(given) = given else { return false };
        let shared = self.token.as_ref().is_some_and(|t| bool::from(given.as_bytes().ct_eq(t)));
        let named = self.users.as_ref().is_some_and(|users| users.verify(given).is_some());
        shared | named
    }
}

/// The guard as a [`Layer`]: a service in front of rmcp's that checks every request before
/// rmcp sees it.
#[derive(Debug, Clone)]
pub(crate) struct GuardLayer(Arc<Guard>);

impl GuardLayer {
    pub(crate) fn new(guard: Guard) -> Self {
        Self(Arc::new(guard))
    }
}

impl<S> Layer<S> for GuardLayer {
    type Service = Guarded<S>;

    fn layer(&self, inner: S) -> Guarded<S> {
        Guarded { guard: Arc::clone(&self.0), inner }
    }
}

/// A service behind the guard.
#[derive(Debug, Clone)]
pub(crate) struct Guarded<S> {
    guard: Arc<Guard>,
    inner: S,
}

impl<S, B> Service<Request> for Guarded<S>
where
    S: Service<Request, Response = http::Response<B>, Error = Infallible>,
    B: http_body::Body<Data = Bytes> + Send + 'static,
    B::Error: Into<axum::BoxError>,
{
    type Response = Response;
    type Error = Infallible;
    type Future = Guarding<S::Future>;

    fn poll_ready(&mut self, cx: &mut Context<'_>) -> Poll<Result<(), Infallible>> {
        self.inner.poll_ready(cx)
    }

    /// Host, Origin and the token are checked here. A body is read once, by rmcp, which
    /// caps its size and parses it; the guard keeps a copy of what it read (shared buffers,
    /// no bytes copied) and, when rmcp refuses the body, answers with a JSON-RPC error that
    /// says what was wrong instead.
    fn call(&mut self, mut request: Request) -> Guarding<S::Future> {
        if let Some(refusal) = self.guard.refusal(request.headers()) {
            return Guarding::Refused { response: Some(refusal) };
        }
        let principal = self.guard.client(request.headers());
        // Who calls is what the token proved, and nothing else.
        request.extensions_mut().remove::<Principal>();
        if let Some(principal) = principal {
            request.extensions_mut().insert(principal);
        }
        let revision = text(request.headers(), PROTOCOL_VERSION).map(str::to_owned);
        if request.method() != Method::POST {
            return Guarding::Passed { inner: self.inner.call(request), body: None, revision };
        }
        let max = self.guard.max_body;
        if declared_length(request.headers()).is_some_and(|length| length > max) {
            return Guarding::Refused { response: Some(too_large(max)) };
        }
        let record = Arc::new(Record::default());
        let kept = Arc::clone(&record);
        let request = request.map(|body| Body::new(Recorded::new(body, kept)));
        let body = Some(Kept { record, max });
        Guarding::Passed { inner: self.inner.call(request), body, revision }
    }
}

pin_project_lite::pin_project! {
    /// The response of a guarded request.
    #[project = GuardingProj]
    pub(crate) enum Guarding<F> {
        Refused { response: Option<Response> },
        Passed { #[pin] inner: F, body: Option<Kept>, revision: Option<String> },
    }
}

/// A POST's body as rmcp read it, and the limit it was read under.
pub(crate) struct Kept {
    record: Arc<Record>,
    max: usize,
}

impl<F, B> Future for Guarding<F>
where
    F: Future<Output = Result<http::Response<B>, Infallible>>,
    B: http_body::Body<Data = Bytes> + Send + 'static,
    B::Error: Into<axum::BoxError>,
{
    type Output = Result<Response, Infallible>;

    fn poll(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<Self::Output> {
        match self.project() {
            GuardingProj::Refused { response } => {
                Poll::Ready(Ok(response.take().unwrap_or_default()))
            }
            GuardingProj::Passed { inner, body, revision } => {
                let Ok(response) = ready!(inner.poll(cx));
                let response = reworded(response.map(Body::new), body.as_ref());
                Poll::Ready(Ok(unprimed(response, revision.as_deref(), body.as_ref())))
            }
        }
    }
}

/// rmcp's refusal of a body, as a JSON-RPC error saying what was wrong; any other response
/// as it is. rmcp refuses a body past the limit with 413, and one it cannot parse with 415
/// (or 400): only a body read to its end, and found not to be JSON-RPC, is answered anew.
fn reworded(response: Response, body: Option<&Kept>) -> Response {
    let Some(Kept { record, max }) = body else { return response };
    match response.status() {
        StatusCode::PAYLOAD_TOO_LARGE => too_large(*max),
        StatusCode::UNSUPPORTED_MEDIA_TYPE | StatusCode::BAD_REQUEST => {
            match record.body().and_then(|body| json_rpc_problem(&body)) {
                Some(problem) => problem,
                None => response,
            }
        }
        _ => response,
    }
}

/// The header that names the revision a client speaks.
const PROTOCOL_VERSION: header::HeaderName =
    header::HeaderName::from_static("mcp-protocol-version");

/// `response`, without its SSE priming event for a client of a revision before 2025-11-25:
/// the one its header names or, on an `initialize`, the one it asks for.
fn unprimed(response: Response, revision: Option<&str>, body: Option<&Kept>) -> Response {
    let streams = response
        .headers()
        .get(header::CONTENT_TYPE)
        .is_some_and(|kind| kind.as_bytes().starts_with(b"text/event-stream"));
    if !streams {
        return response;
    }
    let asked = || {
        let body = body?.record.body()?;
        let message: Value = serde_json::from_slice(&body).ok()?;
        message.pointer("/params/protocolVersion")?.as_str().map(str::to_owned)
    };
    let revision = revision.map(str::to_owned).or_else(asked);
    if reads_priming(revision.as_deref()) {
        return response;
    }
    response.map(|body| Body::new(WithoutPriming::new(body)))
}

/// The `Content-Length` a request declares, if it declares one that is a number.
fn declared_length(headers: &HeaderMap) -> Option<usize> {
    text(headers, header::CONTENT_LENGTH)?.trim().parse().ok()
}

/// The refusal of a body larger than `max` bytes.
fn too_large(max: usize) -> Response {
    let message = format!("the request body is larger than {max} bytes");
    rejection(StatusCode::PAYLOAD_TOO_LARGE, -32600, &message)
}

/// The JSON-RPC error response for `bytes` that are not a JSON-RPC message or batch.
///
/// It runs only on a body rmcp refused, so it parses the body whole: it tells malformed
/// JSON (`-32700`) from JSON that is not JSON-RPC (`-32600`), and passes a body that is
/// JSON-RPC after all, whose refusal rmcp words itself.
fn json_rpc_problem(bytes: &[u8]) -> Option<Response> {
    let value: Value = match serde_json::from_slice(bytes) {
        Ok(value) => value,
        Err(error) => {
            let message = format!("the body is not valid JSON: {error}");
            return Some(rejection(StatusCode::BAD_REQUEST, -32700, &message));
        }
    };
    let is_message = |v: &Value| v.get("jsonrpc").and_then(Value::as_str) == Some("2.0");
    let ok = match &value {
        Value::Object(_) => is_message(&value),
        Value::Array(items) => !items.is_empty() && items.iter().all(is_message),
        _ => false,
    };
    if ok {
        return None;
    }
    let message = "the body is not a JSON-RPC 2.0 message: it needs \"jsonrpc\": \"2.0\"";
    Some(rejection(StatusCode::BAD_REQUEST, -32600, message))
}

/// A JSON-RPC error response with `status`, and nothing else.
fn rejection(status: StatusCode, code: i64, message: &str) -> Response {
    let body = json!({"jsonrpc": "2.0", "id": null, "error": {"code": code, "message": message}});
    (status, [(header::CONTENT_TYPE, "application/json")], body.to_string()).into_response()
}

fn text(headers: &HeaderMap, name: header::HeaderName) -> Option<&str> {
    headers.get(name).and_then(|v| v.to_str().ok())
}

fn matches(allowed: &HostPort, found: &HostPort) -> bool {
    allowed.host == found.host && allowed.port.is_none_or(|port| found.port == Some(port))
}

/// `host`, `host:port`, `[v6]` or `[v6]:port`, parsed as a URI authority, the host in lower
/// case. An authority with user information (`user@host`) is none: a `Host` header has none,
/// and an allowed host must not be matched by one that only ends like it.
fn host_port(text: &str) -> Option<HostPort> {
    let authority: Authority = text.trim().parse().ok()?;
    let host = authority.host();
    let after_host = authority.as_str().strip_prefix(host)?;
    let port = authority.port_u16();
    if host.is_empty() || (!after_host.is_empty() && port.is_none()) {
        return None;
    }
    Some(HostPort { host: host.to_ascii_lowercase(), port })
}

/// `scheme://authority` (with at most a `/` after it), as an `Origin` header or an allowed
/// origin has it, parsed as a URI.
fn origin(text: &str) -> Option<(String, HostPort)> {
    let uri: Uri = text.trim().parse().ok()?;
    let path = uri.path_and_query().map_or("", |path| path.as_str());
    if !path.bytes().all(|b| b == b'/') {
        return None;
    }
    let scheme = uri.scheme_str()?.to_ascii_lowercase();
    Some((scheme, host_port(uri.authority()?.as_str())?))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn at(host: &str, port: Option<u16>) -> HostPort {
        HostPort { host: host.into(), port }
    }

    #[test]
    fn authorities_parse_with_and_without_ports() {
        assert_eq!(host_port("LocalHost"), Some(at("localhost", None)));
        assert_eq!(host_port("[::1]:3000"), Some(at("[::1]", Some(3000))));
        assert_eq!(host_port("host:notaport"), None);
        assert_eq!(
            origin("https://evil.example:443"),
            Some(("https".into(), at("evil.example", Some(443))))
        );
    }

    #[test]
    fn the_body_check_tells_json_rpc_from_the_rest() {
        let cases: [(&str, bool); 12] = [
            (
                r#"{"jsonrpc": "2.0", "id": 1, "method": "tools/call", "params": {"a": [1, {"b": null}]}}"#,
                true,
            ),
            (
                r#"  [{"jsonrpc": "2.0", "method": "x"}, {"jsonrpc": "2.0", "id": 2, "result": {}}]"#,
                true,
            ),
            (r#"{"jsonrpc": "2\u002e0", "method": "x"}"#, true),
            (r#"{"jsonrpc": "1.0", "method": "x"}"#, false),
            (r#"{"method": "x"}"#, false),
            (r#"{"jsonrpc": 2, "method": "x"}"#, false),
            (r#"[]"#, false),
            (r#"[{"jsonrpc": "2.0"}, 7]"#, false),
            (r#"{"jsonrpc": "2.0", "method": "x""#, false),
            (r#""2.0""#, false),
            (r#"{"jsonrpc": "2.0"} trailing"#, false),
            ("", false),
        ];
        for (body, message) in cases {
            assert_eq!(json_rpc_problem(body.as_bytes()).is_none(), message, "{body}");
        }
    }

    #[test]
    fn malformed_hosts_and_origins_are_none() {
        for host in ["", ":3000", "localhost:", "localhost:99999", "evil@localhost", "a b", "[::1"]
        {
            assert_eq!(host_port(host), None, "{host:?}");
        }
        for origin_text in
            ["null", "localhost", "http://", "http://localhost/app", "http://x@localhost"]
        {
            assert_eq!(origin(origin_text), None, "{origin_text:?}");
        }
        assert_eq!(
            origin("http://localhost:3000/"),
            Some(("http".into(), at("localhost", Some(3000))))
        );
    }
}
