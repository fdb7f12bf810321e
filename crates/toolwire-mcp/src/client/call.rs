//! One call to a remote tool: the drift check, the request with its timeouts, progress,
//! `notifications/cancelled` when the call is aborted or dropped, and the rounds of an MCP
//! 2026-07-28 server that asks for input or makes the call a task.

use rmcp::model::{
    CallToolRequest, CallToolRequestParams, CancelledNotification, CancelledNotificationParam,
    ClientRequest, RequestId, ServerResult,
};
use rmcp::service::{PeerRequestOptions, RoleClient};
use serde_json::Value;
use toolwire::{FailureKind, ToolContext, ToolResult};
use tracing::Instrument;

use super::connection::Connection;
use super::meta::input_meta;
use super::result::{Call, from_error, from_reply, not_sent};
use super::{input, task};
use crate::trace::Named;

/// How many rounds of input one call may take before it gives up.
const MAX_ROUNDS: usize = 8;

/// Calls the remote tool `name` with `args`; never panics, whatever the server does.
///
/// # Cancel safety
///
/// Dropping the future before the reply cancels the request: `notifications/cancelled`, or
/// on 2026-07-28 its stream closed.
pub(crate) async fn call(
    connection: &Connection,
    name: &str,
    args: Value,
    ctx: ToolContext,
) -> ToolResult {
    let span = tracing::debug_span!(
        "tools/call",
        otel.name = %Named(name),
        otel.kind = "client",
        mcp.method.name = "tools/call",
        gen_ai.operation.name = "execute_tool",
        gen_ai.tool.name = name,
        toolwire.mcp.server = &*connection.side.server,
        "error.type" = tracing::field::Empty,
        otel.status_code = tracing::field::Empty,
    );
    if span.is_disabled() {
        return call_traced(connection, name, args, ctx).await;
    }
    let started = std::time::Instant::now();
    let result = call_traced(connection, name, args, ctx).instrument(span.clone()).await;
    let error = result.failure_kind().filter(|kind| *kind != FailureKind::Pending).map(|kind| {
        let kind = if kind == FailureKind::Handler { "tool_error" } else { kind.as_str() };
        span.record("error.type", kind);
        span.record("otel.status_code", "ERROR");
        kind
    });
    let _entered = span.enter();
    crate::trace::call_duration("mcp.client.operation.duration", name, error, None, started);
    result
}

/// [`call`], inside its span.
async fn call_traced(
    connection: &Connection,
    name: &str,
    args: Value,
    ctx: ToolContext,
) -> ToolResult {
    let server = &connection.side.server;
    let call = Call { server, tool: name, options: &connection.options };
    if let Err(drift) = connection.side.catalog.check(name) {
        let text = format!(
            "mcp server {server:?}: {drift} since it was pinned; the call is refused until the \
             host accepts the new definition"
        );
        return ToolResult::failed(FailureKind::Denied, text);
    }
    let arguments = match &args {
        Value::Object(arguments) => Some(arguments),
        Value::Null => None,
        _ => return ToolResult::failed(FailureKind::InvalidInput, "arguments must be an object"),
    };
    // What the call's parked state is kept under: made only by a call that asks or answers.
    let call_id = ctx.call_id().map_or("", |id| id.as_str());
    let digest = || toolwire::policy::call_digest(name, call_id, &args);
    // A retry that carries the host's answer to this call's question resumes where the
    // server left it. Without the state (it lapsed, or another process asked) the call
    // starts over, and the answer, which the host checked was made for this very call,
    // answers the first question the server asks again.
    let mut retry = None;
    let mut unplaced = ctx.answer();
    if let Some(answer) = ctx.answer()
        && let Some(parked) = connection.rounds.take(&digest())
    {
        unplaced = None;
        let (state, responses) = input::responses(&parked, answer);
        // A question of a task is answered with `tasks/update`, and the task followed on.
        if let Some(task) = parked.task() {
            return task::resume(connection, &call, task.to_owned(), responses, &ctx, &digest())
                .await;
        }
        retry = Some((state, responses));
    }
    for _ in 0..MAX_ROUNDS {
        let mut params = CallToolRequestParams::new(name.to_owned());
        params.arguments = arguments.cloned();
        if let Some((state, responses)) = retry.take() {
            params.request_state = state;
            params.input_responses = Some(responses);
        }
        let reply = match send(connection, &call, params, &ctx).await {
            Ok(reply) => reply,
            Err(result) => return result,
        };
        let asked = match reply {
            ServerResult::InputRequiredResult(asked) => asked,
            ServerResult::CreateTaskResult(created) => {
                return task::follow(connection, &call, created.task, &ctx, &digest()).await;
            }
            other => return from_reply(&call, other),
        };
        match input::next(server, connection.side.elicitation.as_ref(), asked).await {
            input::Next::Retry(state, responses) => retry = Some((state, responses)),
            input::Next::Ask(_, parked) if unplaced.is_some() => {
                retry = unplaced.take().map(|answer| input::responses(&parked, answer));
            }
            input::Next::Ask(request, parked) => {
                connection.rounds.park(digest(), parked);
                return ToolResult::pending(*request);
            }
            input::Next::Fail(text) => return ToolResult::failure(text),
        }
    }
    ToolResult::failure(format!(
        "mcp server {server:?} asked for input {MAX_ROUNDS} times in one call to {name:?}; \
         giving up"
    ))
}

/// Sends one `tools/call` round and waits for its reply, forwarding progress, and cancelling
/// it when the call is aborted or dropped; the failure as a result when there is no reply.
async fn send(
    connection: &Connection,
    call: &Call<'_>,
    params: CallToolRequestParams,
    ctx: &ToolContext,
) -> Result<ServerResult, ToolResult> {
    #[cfg(feature = "client-http")]
    if let Some(direct) = &connection.direct
        && connection.side.catalog.plain(call.tool)
    {
        return super::direct::send(connection, direct, call, params, ctx).await;
    }
    let request = ClientRequest::CallToolRequest(CallToolRequest::new(params));
    let mut options = PeerRequestOptions::with_timeout(connection.options.idle_timeout)
        .reset_timeout_on_progress();
    options.max_total_timeout = Some(connection.options.max_duration);
    let mut meta = input_meta(connection).unwrap_or_default();
    crate::trace_context::inject(&mut meta);
    options.meta = (!meta.is_empty()).then_some(meta);
    let handle = match connection.peer.send_request_with_option(request, options).await {
        Ok(handle) => handle,
        Err(rmcp::ServiceError::TransportClosed) => return Err(not_sent(call)),
        Err(error) => return Err(from_error(call, error)),
    };
    let _route = connection.side.progress.register(handle.progress_token.clone(), ctx.clone());
    let mut cancel = CancelOnDrop::new(connection.peer.clone(), handle.id.clone());
    let reply = tokio::select! {
        reply = handle.await_response() => reply,
        () = ctx.signal().aborted() => {
            let reason = ctx.signal().reason_or_default().to_owned();
            cancel.send(reason.clone());
            return Err(ToolResult::failed(FailureKind::Aborted, reason));
        }
    };
    cancel.disarm();
    // Progress sent before the reply is handled on tasks of its own: let them run first.
    tokio::task::yield_now().await;
    reply.map_err(|error| from_error(call, error))
}

/// Sends `notifications/cancelled` for a request unless disarmed: when the call is aborted,
/// or its future dropped before the reply.
struct CancelOnDrop {
    peer: rmcp::Peer<RoleClient>,
    id: Option<RequestId>,
}

impl CancelOnDrop {
    /// Armed for the request `id` sent through `peer`'s connection.
    fn new(peer: rmcp::Peer<RoleClient>, id: RequestId) -> Self {
        Self { peer, id: Some(id) }
    }

    fn disarm(&mut self) {
        self.id = None;
    }

    /// Sends the notification in the background, with `reason`; does nothing outside a
    /// runtime, as the connection is gone then.
    fn send(&mut self, reason: String) {
        let Some(id) = self.id.take() else { return };
        let Ok(runtime) = tokio::runtime::Handle::try_current() else { return };
        let peer = self.peer.clone();
        let params = CancelledNotificationParam::new(Some(id), Some(reason));
        runtime.spawn(async move {
            let notification = CancelledNotification::new(params);
            if let Err(error) = peer.send_notification(notification.into()).await {
                tracing::debug!("cannot send notifications/cancelled: {error}");
            }
        });
    }
}

impl Drop for CancelOnDrop {
    fn drop(&mut self) {
        self.send("the caller dropped the call".to_owned());
    }
}
