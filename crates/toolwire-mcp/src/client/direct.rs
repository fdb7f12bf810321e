//! A `tools/call` round on MCP 2026-07-28 over streamable HTTP, sent from the calling task.
//!
//! Under 2026-07-28 a request stands alone: no session, nothing to send first, and its answer
//! comes back on its own POST, as JSON or as an event stream. rmcp's client still routes each
//! request through its service loop and its transport's worker, a task hop each way, and
//! turns the message into a JSON value to build the SEP-2243 headers. Here the round is one
//! POST on the connection's pooled client, and its answer is read where it is awaited.
//!
//! It is used only where it sends what rmcp would send: a connection that settled on
//! 2026-07-28 over HTTP, and a tool whose name can be an `Mcp-Name` header as it is and whose
//! input schema asks for no `Mcp-Param-*` header (`x-mcp-header`). Every other request goes
//! through rmcp.
//!
//! What the round keeps from rmcp's: the `_meta` (protocol version, client info and
//! capabilities, progress token, trace context), the configured headers, the limits on a
//! JSON body and on an event, the idle timeout reset by any event and the cap on the whole
//! call, the connection's in-flight limit (its own semaphore, waited on in order within the
//! call's deadline), progress passed on, the request's stream closed when the call is aborted
//! or dropped (2026-07-28's cancellation), and a stream that ends early resumed by GET with
//! `Last-Event-ID`, as the server's `retry` asks. On a connection that logged in (OAuth,
//! without an authorizer to log in again), each round carries the stored access token,
//! renewed before it expires; a round refused with 401 renews it once and is sent again, as
//! rmcp's `AuthClient` does.

use std::sync::atomic::{AtomicI64, Ordering};
use std::time::Duration;

use http::{HeaderMap, HeaderName, HeaderValue, StatusCode, header};
use rmcp::ServiceError;
use rmcp::model::{
    CallToolRequest, CallToolRequestParams, ClientJsonRpcMessage, ClientRequest, GetMeta,
    NumberOrString, ProgressToken, RequestId, RequestMetaObject, ServerJsonRpcMessage,
    ServerNotification, ServerResult,
};
use tokio::sync::Semaphore;
use tokio::time::Instant;
use toolwire::{FailureKind, ToolContext, ToolResult};

use super::connection::Connection;
use super::result::{Call, from_error, innermost, not_sent, too_large};
use super::sse::{Parser, SseError};

/// What a 2026-07-28 connection over HTTP sends its calls with. Not `Debug`: its headers are
/// the configured ones, which may hold a token.
pub(crate) struct Direct {
    client: reqwest::Client,
    url: reqwest::Url,
    /// The configured headers, with `Accept`, `Content-Type`, `MCP-Protocol-Version` and
    /// `Mcp-Method: tools/call`.
    headers: HeaderMap,
    /// The `_meta` every round carries before its progress token and trace context.
    meta: RequestMetaObject,
    permits: Semaphore,
    /// Request ids, counted down from -1 so that they never meet rmcp's, counted up from 0.
    ids: AtomicI64,
    /// The login each round's token comes from, on a connection that logged in.
    #[cfg(feature = "auth")]
    bearer: Option<Bearer>,
}

/// The authorization manager of a connection that logged in, shared with its transport.
#[cfg(feature = "auth")]
pub(crate) type Bearer =
    std::sync::Arc<tokio::sync::Mutex<rmcp::transport::auth::AuthorizationManager>>;

/// How many times a stream that ended before its result is resumed.
const MAX_RESUMPTIONS: usize = 5;
/// The delay before resuming when the server named none.
const DEFAULT_RETRY: Duration = Duration::from_millis(500);
/// The longest delay before resuming, whatever the server asks.
const MAX_RETRY: Duration = Duration::from_secs(10);

impl Direct {
    /// The sender of a connection to `url` on `version`, with the transport's `client` and
    /// configured `headers`, the `meta` of every request, and the options' in-flight limit.
    pub(crate) fn new(
        client: reqwest::Client,
        url: reqwest::Url,
        mut headers: HeaderMap,
        meta: RequestMetaObject,
        options: &super::ClientOptions,
    ) -> Result<Self, String> {
        let version = meta
            .protocol_version()
            .ok_or_else(|| "no protocol version in the request metadata".to_owned())?;
        let version = HeaderValue::from_str(version.as_str())
            .map_err(|_| "the protocol version is not a header value".to_owned())?;
        headers.insert(
            header::ACCEPT,
            HeaderValue::from_static("application/json, text/event-stream"),
        );
        headers.insert(header::CONTENT_TYPE, HeaderValue::from_static("application/json"));
        headers.insert(HeaderName::from_static("mcp-protocol-version"), version);
        headers
            .insert(HeaderName::from_static("mcp-method"), HeaderValue::from_static("tools/call"));
        Ok(Self {
            client,
            url,
            headers,
            meta,
            permits: Semaphore::new(options.max_in_flight.max(1)),
            ids: AtomicI64::new(-1),
            #[cfg(feature = "auth")]
            bearer: None,
        })
    }

    /// Sends each round with a token of `bearer`'s login.
    #[cfg(feature = "auth")]
    pub(crate) fn with_bearer(mut self, bearer: Bearer) -> Self {
        self.bearer = Some(bearer);
        self
    }
}

/// Sends one round of a call to `tool` on `direct` and waits for its reply, as
/// [`send`](super::call) does through rmcp.
///
/// # Cancel safety
///
/// Dropping the future closes the request's stream, which cancels the request.
pub(crate) async fn send(
    connection: &Connection,
    direct: &Direct,
    call: &Call<'_>,
    params: CallToolRequestParams,
    ctx: &ToolContext,
) -> Result<ServerResult, ToolResult> {
    let options = &connection.options;
    let deadline = Instant::now() + options.max_duration;
    let cap = ServiceError::Timeout { timeout: options.max_duration };
    let Ok(permit) = tokio::time::timeout_at(deadline, direct.permits.acquire()).await else {
        return Err(from_error(call, cap));
    };
    let _permit = permit.map_err(|_| not_sent(call))?;
    let number = direct.ids.fetch_sub(1, Ordering::Relaxed);
    let id = RequestId::Number(number);
    let token = ProgressToken(NumberOrString::Number(number));
    let body = request_body(direct, params, id.clone(), token.clone())
        .map_err(|error| ToolResult::failure(format!("cannot encode the call: {error}")))?;
    let headers = round_headers(direct, call.tool)?;
    let _route = connection.side.progress.register(token, ctx.clone());
    let round = Round { connection, direct, call, id: &id, deadline };
    // On 2026-07-28 a request is cancelled by closing its stream (rmcp's client sends no
    // `notifications/cancelled` either): leaving the select drops the request, and with it
    // the connection it was read from.
    let reply = tokio::select! {
        reply = round.authorized(headers, body) => reply,
        () = ctx.signal().aborted() => {
            let reason = ctx.signal().reason_or_default().to_owned();
            return Err(ToolResult::failed(FailureKind::Aborted, reason));
        }
    };
    reply.map_err(|failure| failure.into_result(call))
}

/// One round's request and what it needs to read the answer.
struct Round<'a> {
    connection: &'a Connection,
    direct: &'a Direct,
    call: &'a Call<'a>,
    id: &'a RequestId,
    deadline: Instant,
}

/// Why a round has no reply.
enum Failure {
    /// As rmcp would have failed it.
    Service(ServiceError),
    /// The server sent more than the connection takes.
    TooLarge(Option<u64>),
    /// The request did not reach the server, or its answer broke off: what went wrong.
    Transport(String),
    /// The stream ended for good before the result.
    Dropped,
    /// The server refused the login (401), or it could not be renewed: why.
    #[cfg(feature = "auth")]
    Login(String),
}

impl Failure {
    fn into_result(self, call: &Call<'_>) -> ToolResult {
        let Call { server, tool, .. } = call;
        match self {
            Self::Service(error) => from_error(call, error),
            Self::TooLarge(size) => too_large(call, size),
            Self::Transport(what) => ToolResult::failure(format!(
                "the call to {tool:?} on mcp server {server:?} failed: {what}"
            )),
            Self::Dropped => ToolResult::failure(format!(
                "mcp server {server:?} ended its answer to the call to {tool:?} before the result, \
                 and it could not be resumed"
            )),
            #[cfg(feature = "auth")]
            Self::Login(why) => ToolResult::failure(format!(
                "mcp server {server:?} needs a login for the call to {tool:?}: {why}"
            )),
        }
    }
}

impl Round<'_> {
    /// [`run`](Self::run), with the login's token on a connection that logged in: renewed
    /// before it expires, and once more when the server refuses it.
    async fn authorized(&self, headers: HeaderMap, body: Vec<u8>) -> Result<ServerResult, Failure> {
        #[cfg(feature = "auth")]
        if let Some(bearer) = &self.direct.bearer {
            let mut headers = headers;
            headers.insert(header::AUTHORIZATION, token(bearer, false).await?);
            return match self.run(headers.clone(), body.clone()).await {
                Err(Failure::Login(_)) => {
                    headers.insert(header::AUTHORIZATION, token(bearer, true).await?);
                    self.run(headers, body).await
                }
                reply => reply,
            };
        }
        self.run(headers, body).await
    }

    async fn run(&self, headers: HeaderMap, body: Vec<u8>) -> Result<ServerResult, Failure> {
        let request = self.direct.client.post(self.direct.url.clone()).headers(headers).body(body);
        let response = self.within(request.send()).await?.map_err(transport)?;
        let status = response.status();
        #[cfg(feature = "auth")]
        if status == StatusCode::UNAUTHORIZED && self.direct.bearer.is_some() {
            return Err(Failure::Login(
                "the server refused the stored login (401) and it could not be renewed".into(),
            ));
        }
        if status == StatusCode::ACCEPTED || status == StatusCode::NO_CONTENT {
            return Err(Failure::Transport(format!("the server answered {status} with no result")));
        }
        match content_type(&response) {
            Kind::Json => {
                let bytes = self.json_body(response).await?;
                match self.message(&bytes) {
                    Some(reply) => reply,
                    None if status.is_success() => Err(Failure::Transport(
                        "the server answered with JSON that is not the call's reply".to_owned(),
                    )),
                    None => Err(Failure::Transport(format!("the server answered {status}"))),
                }
            }
            Kind::EventStream if status.is_success() => self.events(response).await,
            _ => Err(Failure::Transport(format!(
                "the server answered {status}{}",
                response
                    .headers()
                    .get(header::CONTENT_TYPE)
                    .and_then(|value| value.to_str().ok())
                    .map(|kind| format!(" with {kind:?}"))
                    .unwrap_or_default()
            ))),
        }
    }

    /// `future` within the idle timeout and the call's cap.
    async fn within<F: Future>(&self, future: F) -> Result<F::Output, Failure> {
        let options = &self.connection.options;
        let idle = Instant::now() + options.idle_timeout;
        let (until, timeout) = if idle < self.deadline {
            (idle, options.idle_timeout)
        } else {
            (self.deadline, options.max_duration)
        };
        tokio::time::timeout_at(until, future)
            .await
            .map_err(|_| Failure::Service(ServiceError::Timeout { timeout }))
    }

    /// A JSON body, read up to the limit.
    async fn json_body(&self, mut response: reqwest::Response) -> Result<Vec<u8>, Failure> {
        let limit = self.connection.options.max_message_bytes();
        if let Some(length) = response.content_length().filter(|length| *length > limit as u64) {
            return Err(Failure::TooLarge(Some(length)));
        }
        let mut body = Vec::with_capacity(response.content_length().unwrap_or(0) as usize);
        while let Some(chunk) = self.within(response.chunk()).await?.map_err(transport)? {
            if body.len() + chunk.len() > limit {
                return Err(Failure::TooLarge(None));
            }
            body.extend_from_slice(&chunk);
        }
        Ok(body)
    }

    /// The events of a stream until the reply, resuming it by GET when it ends early.
    async fn events(&self, mut response: reqwest::Response) -> Result<ServerResult, Failure> {
        let mut parser = Parser::new(self.connection.options.max_message_bytes());
        let mut events = Vec::new();
        let mut resumptions = 0;
        loop {
            match self.within(response.chunk()).await?.map_err(transport)? {
                Some(chunk) => {
                    parser.feed(&chunk, &mut events).map_err(|error| match error {
                        SseError::TooLarge => Failure::TooLarge(None),
                        SseError::NotUtf8 => {
                            Failure::Transport("the server sent an event that is not UTF-8".into())
                        }
                    })?;
                    for event in events.drain(..) {
                        if let Some(reply) = self.message(event.data.as_bytes()) {
                            finish(response).await;
                            return reply;
                        }
                    }
                }
                None => {
                    let Some(last) = parser.last_id.clone() else { return Err(Failure::Dropped) };
                    if resumptions == MAX_RESUMPTIONS {
                        return Err(Failure::Dropped);
                    }
                    resumptions += 1;
                    let delay = parser.retry_ms.map_or(DEFAULT_RETRY, Duration::from_millis);
                    tokio::time::sleep_until(Instant::now() + delay.min(MAX_RETRY)).await;
                    response = self.resume(&last).await?;
                }
            }
        }
    }

    /// A GET that resumes the stream after the event `last`.
    async fn resume(&self, last: &str) -> Result<reqwest::Response, Failure> {
        let mut headers = self.direct.headers.clone();
        headers.remove(header::CONTENT_TYPE);
        headers.remove(HeaderName::from_static("mcp-method"));
        headers.insert(header::ACCEPT, HeaderValue::from_static("text/event-stream"));
        let last = HeaderValue::from_str(last).map_err(|_| Failure::Dropped)?;
        headers.insert(HeaderName::from_static("last-event-id"), last);
        let request = self.direct.client.get(self.direct.url.clone()).headers(headers);
        let response = self.within(request.send()).await?.map_err(transport)?;
        let resumed =
            response.status().is_success() && matches!(content_type(&response), Kind::EventStream);
        if resumed { Ok(response) } else { Err(Failure::Dropped) }
    }

    /// The reply in `bytes` if it is this round's, or `None` for anything else (a
    /// notification, passed on where it is progress).
    fn message(&self, bytes: &[u8]) -> Option<Result<ServerResult, Failure>> {
        if bytes.is_empty() {
            return None;
        }
        let message = match serde_json::from_slice::<ServerJsonRpcMessage>(bytes) {
            Ok(message) => message,
            Err(error) => {
                return Some(Err(Failure::Transport(format!(
                    "the server sent a message that is not MCP: {error}"
                ))));
            }
        };
        match message {
            ServerJsonRpcMessage::Response(reply) if &reply.id == self.id => Some(Ok(reply.result)),
            // An error without an id (a parse error, say) can only be about this POST's one
            // request.
            ServerJsonRpcMessage::Error(error)
                if error.id.as_ref().is_none_or(|id| id == self.id) =>
            {
                Some(Err(Failure::Service(ServiceError::McpError(error.error))))
            }
            ServerJsonRpcMessage::Notification(notification) => {
                if let ServerNotification::ProgressNotification(progress) =
                    notification.notification
                {
                    self.connection.side.progress.deliver(progress.params);
                }
                None
            }
            other => {
                tracing::debug!(
                    server = %self.call.server,
                    "ignored a message that does not answer the call: {other:?}"
                );
                None
            }
        }
    }
}

/// How long the end of a stream is waited for after its reply.
const DRAIN_FOR: Duration = Duration::from_millis(250);
/// The most bytes read after a reply.
const DRAIN_BYTES: usize = 64 * 1024;

/// Reads the rest of a stream whose reply has come, so that its connection goes back to the
/// pool: one whose response was not read to its end is closed, and the next call would open
/// another. A server ends the stream right after the reply, so the end is there at once or
/// nearly; one that keeps it open past [`DRAIN_FOR`] or [`DRAIN_BYTES`] has it closed.
async fn finish(mut response: reqwest::Response) {
    let mut read = 0;
    let drain = async {
        while let Ok(Some(chunk)) = response.chunk().await {
            read += chunk.len();
            if read > DRAIN_BYTES {
                break;
            }
        }
    };
    let _ = tokio::time::timeout(DRAIN_FOR, drain).await;
}

/// The `Authorization` header of a round: the stored access token (renewed by rmcp when it
/// is about to expire), or with `renew` a freshly renewed one.
#[cfg(feature = "auth")]
async fn token(bearer: &Bearer, renew: bool) -> Result<HeaderValue, Failure> {
    let login = |e: rmcp::transport::auth::AuthError| Failure::Login(e.to_string());
    let manager = bearer.lock().await;
    if renew {
        manager.refresh_token().await.map_err(login)?;
    }
    let token = manager.get_access_token().await.map_err(login)?;
    let mut value = HeaderValue::from_str(&format!("Bearer {token}"))
        .map_err(|_| Failure::Login("the stored token is not a header value".into()))?;
    value.set_sensitive(true);
    Ok(value)
}

/// The JSON-RPC request of a round.
fn request_body(
    direct: &Direct,
    params: CallToolRequestParams,
    id: RequestId,
    token: ProgressToken,
) -> Result<Vec<u8>, serde_json::Error> {
    let mut request = ClientRequest::CallToolRequest(CallToolRequest::new(params));
    let meta = request.get_meta_mut();
    meta.extend(direct.meta.clone());
    meta.set_progress_token(token);
    crate::trace_context::inject(meta);
    serde_json::to_vec(&ClientJsonRpcMessage::request(request, id))
}

/// The headers of a round that calls `tool`.
fn round_headers(direct: &Direct, tool: &str) -> Result<HeaderMap, ToolResult> {
    let mut headers = direct.headers.clone();
    let name = HeaderValue::from_str(tool)
        .map_err(|_| ToolResult::failure(format!("{tool:?} cannot be sent as a header")))?;
    headers.insert(HeaderName::from_static("mcp-name"), name);
    Ok(headers)
}

/// What went wrong with the request, in words: the innermost cause, without type names.
fn transport(error: reqwest::Error) -> Failure {
    let last = innermost(&error);
    let what = if error.is_connect() {
        format!("cannot connect: {last}")
    } else if error.is_body() || error.is_decode() {
        format!("its answer broke off: {last}")
    } else {
        last
    };
    Failure::Transport(what)
}

/// The kind of body a response says it has.
enum Kind {
    Json,
    EventStream,
    Other,
}

fn content_type(response: &reqwest::Response) -> Kind {
    let Some(value) = response.headers().get(header::CONTENT_TYPE) else { return Kind::Other };
    let essence = value.as_bytes().split(|b| *b == b';').next().unwrap_or_default();
    let essence = essence.trim_ascii();
    if essence.eq_ignore_ascii_case(b"application/json") {
        Kind::Json
    } else if essence.eq_ignore_ascii_case(b"text/event-stream") {
        Kind::EventStream
    } else {
        Kind::Other
    }
}
