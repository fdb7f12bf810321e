//! One call to a remote tool: the drift check, the request with its timeouts, progress, and
//! `notifications/cancelled` when the call is aborted or dropped.

use rmcp::model::{
    CallToolRequest, CallToolRequestParams, CancelledNotification, CancelledNotificationParam,
    ClientRequest, RequestId,
};
use rmcp::service::{PeerRequestOptions, RoleClient};
use serde_json::Value;
use toolwire::{FailureKind, ToolContext, ToolResult};

use super::connection::Connection;
use super::result::{Call, from_error, from_reply};

/// Calls the remote tool `name` with `args`; never panics, whatever the server does.
///
/// # Cancel safety
///
/// Dropping the future before the reply sends `notifications/cancelled` for the request.
pub(crate) async fn call(
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
    let arguments = match args {
        Value::Object(arguments) => Some(arguments),
        Value::Null => None,
        _ => return ToolResult::failed(FailureKind::InvalidInput, "arguments must be an object"),
    };
    let mut params = CallToolRequestParams::new(name.to_owned());
    params.arguments = arguments;
    let request = ClientRequest::CallToolRequest(CallToolRequest::new(params));
    let mut options = PeerRequestOptions::with_timeout(connection.options.idle_timeout)
        .reset_timeout_on_progress();
    options.max_total_timeout = Some(connection.options.max_duration);
    let handle = match connection.peer.send_request_with_option(request, options).await {
        Ok(handle) => handle,
        Err(rmcp::ServiceError::TransportClosed) => {
            let text = format!(
                "the connection to mcp server {server:?} is closed; the call to {name:?} was not sent"
            );
            return ToolResult::failure(text);
        }
        Err(error) => return from_error(&call, error),
    };
    let _route = connection.side.progress.register(handle.progress_token.clone(), ctx.clone());
    let mut cancel = CancelOnDrop { peer: connection.peer.clone(), id: Some(handle.id.clone()) };
    let reply = tokio::select! {
        reply = handle.await_response() => reply,
        () = ctx.signal().aborted() => {
            let reason = ctx.signal().reason_or_default().to_owned();
            cancel.send(reason.clone());
            return ToolResult::failed(FailureKind::Aborted, reason);
        }
    };
    cancel.disarm();
    // Progress sent before the reply is handled on tasks of its own: let them run first.
    tokio::task::yield_now().await;
    match reply {
        Ok(reply) => from_reply(&call, reply),
        Err(error) => from_error(&call, error),
    }
}

/// Sends `notifications/cancelled` for a request unless disarmed: when the call is aborted,
/// or its future dropped before the reply.
struct CancelOnDrop {
    peer: rmcp::Peer<RoleClient>,
    id: Option<RequestId>,
}

impl CancelOnDrop {
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
