//! The checks every HTTP request passes before rmcp sees it: Host, Origin, bearer token,
//! body size, and a body that is JSON-RPC.

use std::sync::Arc;

use axum::body::{Body, Bytes};
use axum::extract::{Request, State};
use axum::middleware::Next;
use axum::response::{IntoResponse, Response};
use http::uri::{Authority, Uri};
use http::{HeaderMap, Method, StatusCode, header};
use serde_json::{Value, json};
use subtle::ConstantTimeEq;

use super::http_options::HttpOptions;

/// The guard's settings, shared by every request.
#[derive(Debug)]
pub(crate) struct Guard {
    hosts: Vec<HostPort>,
    origins: Vec<(String, HostPort)>,
    token: Option<Vec<u8>>,
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
        Self { hosts, origins, token, max_body: options.max_body_bytes }
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

    /// Whether the request carries the bearer token, when one is required.
    fn token_ok(&self, headers: &HeaderMap) -> bool {
        let Some(expected) = &self.token else { return true };
        let given = text(headers, header::AUTHORIZATION).and_then(|v| v.strip_prefix("Bearer "));
        given.is_some_and(|given| bool::from(given.as_bytes().ct_eq(expected)))
    }
}

/// The middleware: each check in turn, then the request, with its body read and checked.
pub(crate) async fn guard(
    State(guard): State<Arc<Guard>>,
    request: Request,
    next: Next,
) -> Response {
    let headers = request.headers();
    if !guard.host_allowed(headers) {
        return rejection(StatusCode::FORBIDDEN, -32600, "the Host header is not allowed");
    }
    if !guard.origin_allowed(headers) {
        return rejection(StatusCode::FORBIDDEN, -32600, "the Origin header is not allowed");
    }
    if !guard.token_ok(headers) {
        let mut response =
            rejection(StatusCode::UNAUTHORIZED, -32600, "a valid bearer token is required");
        response
            .headers_mut()
            .insert(header::WWW_AUTHENTICATE, http::HeaderValue::from_static("Bearer"));
        return response;
    }
    if request.method() != Method::POST {
        return next.run(request).await;
    }
    let (parts, body) = request.into_parts();
    let bytes = match read_body(body, guard.max_body).await {
        Ok(bytes) => bytes,
        Err(response) => return response,
    };
    if let Some(response) = json_rpc_problem(&bytes) {
        return response;
    }
    next.run(Request::from_parts(parts, Body::from(bytes))).await
}

/// The body, up to `max` bytes; past that, 413.
async fn read_body(body: Body, max: usize) -> Result<Bytes, Response> {
    axum::body::to_bytes(body, max).await.map_err(|_| {
        let message = format!("the request body is larger than {max} bytes");
        rejection(StatusCode::PAYLOAD_TOO_LARGE, -32600, &message)
    })
}

/// The JSON-RPC error response for `bytes` that are not a JSON-RPC message or batch.
///
/// A well-formed body is read once here without building it (only its `jsonrpc` members
/// are kept), and once by rmcp; only a body that fails that light read is parsed whole, to
/// tell malformed JSON (`-32700`) from JSON that is not JSON-RPC (`-32600`).
fn json_rpc_problem(bytes: &[u8]) -> Option<Response> {
    if light_check(bytes) {
        return None;
    }
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

/// The `jsonrpc` member of a message, every other member skipped unbuilt.
#[derive(serde::Deserialize)]
struct Envelope<'a> {
    #[serde(borrow, default)]
    jsonrpc: Option<std::borrow::Cow<'a, str>>,
}

/// Whether `bytes` are, at a glance, a JSON-RPC 2.0 message or a non-empty batch of them.
/// `false` means "look closer", not "refused".
fn light_check(bytes: &[u8]) -> bool {
    let is_message = |envelope: &Envelope<'_>| envelope.jsonrpc.as_deref() == Some("2.0");
    match bytes.iter().find(|b| !b.is_ascii_whitespace()) {
        Some(b'{') => serde_json::from_slice::<Envelope<'_>>(bytes).is_ok_and(|e| is_message(&e)),
        Some(b'[') => serde_json::from_slice::<Vec<Envelope<'_>>>(bytes)
            .is_ok_and(|batch| !batch.is_empty() && batch.iter().all(is_message)),
        _ => false,
    }
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
    fn the_light_read_agrees_with_the_whole_parse() {
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
            assert_eq!(light_check(body.as_bytes()), message, "{body}");
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
