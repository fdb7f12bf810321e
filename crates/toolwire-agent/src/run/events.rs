//! [`AgentEvent`]: what a run reports while it goes.

use std::sync::Arc;

use serde_json::Value;
use toolwire::{CallId, Receipt, Request, ToolCall};

/// Something that happened in a run, as it happened.
///
/// Events borrow from the run; copy what you keep. Calls run on their own tasks, so
/// [`CallFinished`](Self::CallFinished) and [`ToolEvent`](Self::ToolEvent) may arrive from
/// other threads, and in any order across calls.
#[non_exhaustive]
#[derive(Debug)]
pub enum AgentEvent<'a> {
    /// The model is asked for turn number `turn` (from 1).
    TurnStarted {
        /// The turn's number in the run, from 1.
        turn: u32,
    },
    /// A piece of the model's text.
    TextDelta(&'a str),
    /// A call is starting.
    CallStarted(&'a ToolCall),
    /// A call's handler emitted an event, such as progress.
    ToolEvent {
        /// The call's id.
        call_id: &'a CallId,
        /// What the handler emitted.
        event: &'a Value,
    },
    /// A call finished, with this receipt.
    CallFinished(&'a Receipt),
    /// A call is parked until a host answers its request; the run will end
    /// [`Pending`](crate::StopReason::Pending).
    ApprovalNeeded {
        /// The call's receipt, whose result is pending.
        receipt: &'a Receipt,
        /// What the call waits for; answer it with an [`Answer`](toolwire::Answer) to its id.
        request: &'a Request,
    },
}

/// The agent's event callback.
pub(crate) type EventSink = Arc<dyn Fn(&AgentEvent<'_>) + Send + Sync>;

/// Tells `sink`, if any, that `receipt` is in; and that it waits, when it does.
pub(crate) fn finished(sink: Option<&EventSink>, receipt: &Receipt) {
    let Some(sink) = sink else { return };
    sink(&AgentEvent::CallFinished(receipt));
    if let Some(request) = receipt.result.pending_request() {
        sink(&AgentEvent::ApprovalNeeded { receipt, request });
    }
}
