//! [`RunState`]: a run as plain data, to store anywhere and resume in any process.

use serde::{Deserialize, Serialize};
use serde_json::Value;
use toolwire::{CallId, FailureKind, Provider, Receipt, Request, ToolCall};

/// Where a run stands: the conversation so far in the provider's wire messages, the turns
/// taken, and the calls of the last turn when some of them wait for an answer.
///
/// It serializes to JSON and back unchanged, so a host can keep it in any store (see
/// [`RunStore`](crate::RunStore)) and resume it in another process, with an agent built
/// for the same provider and model. To resume approvals there, the registry must share the
/// approval key of the first (see
/// [`RegistryBuilder::approval_key`](toolwire::RegistryBuilder::approval_key)).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct RunState {
    /// The run's id, unique across processes.
    pub run_id: String,
    /// The provider of the conversation's wire messages; it serializes as its name
    /// ([`Provider::as_str`]), so a state saved with a name reads back.
    pub provider: Provider,
    /// The model's name.
    pub model: String,
    /// The conversation so far, in the provider's wire messages (or Responses input items).
    pub messages: Vec<Value>,
    /// How many model turns the run has taken.
    pub turns: u32,
    /// How many of them came since the last user prompt: the turn limit counts these, over
    /// every resumption. (Read as 0 from a state saved before it existed.)
    #[serde(default)]
    pub prompt_turns: u32,
    /// The deferred tools the run's searches have found, in the order found: each later
    /// turn sends them after the loaded tools, and of the deferred tools only these may be
    /// called (see [`SEARCH_TOOL`](crate::SEARCH_TOOL)). Empty when the registry defers none.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub found_tools: Vec<String>,
    /// The last turn's calls, when some wait for an answer.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub pending: Option<PendingTurn>,
    /// What the host keeps with the run for itself, such as how to reach the model again
    /// when it resumes the run (see [`Run::meta`](crate::Run::meta)); the agent never reads
    /// it. `null` when unset.
    #[serde(default, skip_serializing_if = "Value::is_null")]
    pub meta: Value,
}

/// A turn whose calls are run but some of them wait: the results go back to the model once
/// every call has one.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct PendingTurn {
    /// What the turn appended to the conversation (the last of
    /// [`RunState::messages`]), kept to render the results in its shape.
    pub assistant: Vec<Value>,
    /// The turn's calls, in order.
    pub calls: Vec<ToolCall>,
    /// A receipt per call, in order; the waiting ones have pending results.
    pub receipts: Vec<Receipt>,
}

/// A call that waits, and for what.
#[derive(Debug, Clone, PartialEq)]
pub struct PendingCall {
    /// The model's id for the call.
    pub call_id: CallId,
    /// The tool called.
    pub tool: String,
    /// What the call waits for; answer with an [`Answer`](toolwire::Answer) to
    /// `request.id`.
    pub request: Request,
}

impl RunState {
    /// The calls that wait for an answer, in call order.
    pub fn requests(&self) -> Vec<PendingCall> {
        let Some(pending) = &self.pending else { return Vec::new() };
        pending
            .receipts
            .iter()
            .zip(&pending.calls)
            .filter_map(|(receipt, call)| {
                let request = receipt.result.pending_request()?.clone();
                Some(PendingCall {
                    call_id: call.call_id.clone(),
                    tool: call.tool.to_string(),
                    request,
                })
            })
            .collect()
    }

    /// Whether calls wait for an answer.
    pub fn is_pending(&self) -> bool {
        self.pending.as_ref().is_some_and(|turn| turn.receipts.iter().any(is_waiting))
    }
}

/// Whether `receipt` waits for an answer.
pub(crate) fn is_waiting(receipt: &Receipt) -> bool {
    receipt.result.failure_kind() == Some(FailureKind::Pending)
}
