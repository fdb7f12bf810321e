//! Starting one call, or a dispatch, with the agent's options and the run's signal.

use std::future::IntoFuture;
use std::sync::Arc;

use tokio::task::JoinHandle;
use toolwire::{AbortSignal, Dispatch, DispatchFuture, FailureKind, Receipt, ToolCall, ToolResult};

use super::Shared;
use super::events::AgentEvent;
use crate::client::BoxFuture;

pub(super) async fn joined(handle: Option<JoinHandle<Receipt>>) -> Option<Receipt> {
    Some(handle?.await.unwrap_or_else(|error| {
        let text = format!("the call's task ended without a result: {error}");
        receipt_of(ToolResult::failed(FailureKind::Aborted, text))
    }))
}

/// Whose call a receipt is: its id and tool, cheap to copy.
pub(super) struct Whose {
    call_id: toolwire::CallId,
    tool: Arc<str>,
}

impl Whose {
    pub(super) fn of(call: &ToolCall) -> Self {
        Self { call_id: call.call_id.clone(), tool: Arc::clone(&call.tool) }
    }

    /// `receipt`, named after this call when it was made for none in particular (a lost or
    /// failed task), so that [`repair`](toolwire::provider::repair) matches it by the
    /// call's id instead of replacing its text.
    pub(super) fn own(self, mut receipt: Receipt) -> Receipt {
        if receipt.call_id.is_none() {
            receipt.call_id = Some(self.call_id);
            receipt.tool = self.tool;
        }
        receipt
    }
}

pub(super) fn lost() -> Receipt {
    receipt_of(ToolResult::failed(FailureKind::Aborted, toolwire::provider::MISSING_RESULT))
}

fn receipt_of(result: ToolResult) -> Receipt {
    Receipt::unrun("", None, result)
}

/// A dispatch with the agent's options and the run's signal.
pub(crate) fn prepare(shared: &Shared, calls: Dispatch, signal: &AbortSignal) -> DispatchFuture {
    let mut calls = shared.app.dispatch(calls.signal(signal.clone()));
    if let Some(timeout) = shared.call_timeout {
        calls = calls.timeout(timeout);
    }
    if let Some(sink) = shared.events.clone() {
        calls = calls.on_event(move |call_id, event| {
            sink(&AgentEvent::ToolEvent { call_id, event: &event })
        });
    }
    calls.into_future()
}

/// One call, started at once; a call whose arguments could not be read goes through a
/// dispatch, which fails it with the reason.
pub(super) fn start(
    shared: &Shared,
    call: ToolCall,
    signal: &AbortSignal,
) -> BoxFuture<'static, Receipt> {
    if call.malformed.is_some() {
        let one = prepare(shared, shared.registry.dispatch([call]), signal);
        return Box::pin(async move { one.await.pop().unwrap_or_else(lost) });
    }
    let ToolCall { call_id, tool, arguments, .. } = call;
    let mut invocation =
        shared.registry.invoke(&tool, arguments).call_id(call_id.clone()).signal(signal.clone());
    invocation = shared.app.invocation(invocation);
    if let Some(timeout) = shared.call_timeout {
        invocation = invocation.timeout(timeout);
    }
    if let Some(sink) = shared.events.clone() {
        invocation = invocation.on_event(move |event| {
            sink(&AgentEvent::ToolEvent { call_id: &call_id, event: &event })
        });
    }
    Box::pin(invocation.into_future())
}
