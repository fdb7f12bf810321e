//! Starting one call, or a dispatch, with the agent's options and the run's signal.

use std::future::IntoFuture;
use std::sync::Arc;

use tokio::task::JoinHandle;
use toolwire::{
    AbortSignal, Answer, CallOptions, Dispatch, DispatchFuture, FailureKind, Receipt, ToolCall,
    ToolResult,
};

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

/// The options of every call of a run: the agent's state, principal and call timeout, and
/// the run's signal.
fn options(shared: &Shared, signal: &AbortSignal) -> CallOptions {
    let mut options = shared.app.options().signal(signal.clone());
    if let Some(principal) = &shared.principal {
        options = options.principal(principal.clone());
    }
    match shared.call_timeout {
        Some(timeout) => options.timeout(timeout),
        None => options,
    }
}

/// A dispatch with the agent's options and the run's signal.
pub(crate) fn prepare(shared: &Shared, calls: Dispatch, signal: &AbortSignal) -> DispatchFuture {
    let mut calls = calls.options(options(shared, signal));
    if let Some(sink) = shared.events.clone() {
        calls = calls.on_event(move |call_id, event| {
            sink(&AgentEvent::ToolEvent { call_id, event: &event })
        });
    }
    calls.into_future()
}

/// One call, started at once; a call whose arguments could not be read fails with the
/// reason, through the same road.
pub(super) fn start(
    shared: &Shared,
    call: ToolCall,
    signal: &AbortSignal,
) -> BoxFuture<'static, Receipt> {
    started(shared, call, options(shared, signal))
}

/// A call that waited, run again with the host's `answer`.
pub(super) fn start_answered(
    shared: &Shared,
    call: ToolCall,
    answer: Answer,
    signal: &AbortSignal,
) -> BoxFuture<'static, Receipt> {
    started(shared, call, options(shared, signal).answer(answer))
}

/// `call` started with `options`, and with the agent's event sink.
fn started(
    shared: &Shared,
    call: ToolCall,
    mut options: CallOptions,
) -> BoxFuture<'static, Receipt> {
    if let Some(sink) = shared.events.clone() {
        let call_id = call.call_id.clone();
        options = options.on_event(move |event| {
            sink(&AgentEvent::ToolEvent { call_id: &call_id, event: &event })
        });
    }
    Box::pin(shared.registry.call(call).options(options).into_future())
}
