//! [`TaskRecord`] and [`TaskState`]: a task as a store keeps it.

use std::time::SystemTime;

use serde::{Deserialize, Serialize};
use serde_json::Value;

use crate::record::{Answer, Request, ToolResult};

/// Where a task stands.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(tag = "status", rename_all = "snake_case")]
pub enum TaskState {
    /// The call is running, in the process that holds the [`lease`](TaskRecord::lease).
    Working,
    /// The call is waiting for the answer to `request`; nothing runs meanwhile.
    InputRequired {
        /// The question, as the pipeline returned it.
        request: Request,
    },
    /// The call ended with `result`: a success or a failure the tool (or the pipeline)
    /// reported, but never a pending one.
    Completed {
        /// The call's result.
        result: ToolResult,
    },
    /// The task ended without a result: the handler panicked, or the process running it
    /// stopped and whether the call took effect is unknown.
    Failed {
        /// What went wrong, readable.
        message: String,
    },
    /// The task was cancelled before it ended.
    Cancelled,
}

impl TaskState {
    /// Whether the task has ended: completed, failed or cancelled.
    pub fn is_terminal(&self) -> bool {
        matches!(self, Self::Completed { .. } | Self::Failed { .. } | Self::Cancelled)
    }
}

/// Which process runs a task, and until when: a process that stops renewing its lease is
/// presumed gone, and another may take the task over.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct TaskLease {
    /// The process's own id, unique per process run.
    pub owner: String,
    /// When the lease lapses unless renewed.
    pub until: SystemTime,
}

/// A task, as a [`TaskStore`](super::TaskStore) keeps it.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct TaskRecord {
    /// The task's id: unguessable, made by the bridge.
    pub id: String,
    /// Bumped by every [`update`](super::TaskStore::update); 0 when created.
    pub version: u64,
    /// The tool called.
    pub tool: String,
    /// The arguments it was called with.
    pub arguments: Value,
    /// The call id every round of the call runs under, which its digest binds.
    pub call_id: String,
    /// Who may see and steer the task: a keyed hash of the client's credential, or `None`
    /// when the transport has none.
    pub principal: Option<String>,
    /// Where it stands.
    pub state: TaskState,
    /// The process running it, while it is [`Working`](TaskState::Working).
    pub lease: Option<TaskLease>,
    /// Whether an answer has resumed the call: a call that ran with an answer is never run
    /// again by a takeover, since its answer was spent.
    pub answered: bool,
    /// What the bridge keeps with the task, for itself: an MCP server keeps the questions
    /// it asked and the answers it has so far.
    pub bridge: Value,
    /// The host's answer to the task's question, given outside the bridge (such as with
    /// `toolwire approvals answer`): the bridge resumes the call with it, as if the client
    /// had answered.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub host_answer: Option<Answer>,
    /// A message for whoever follows the task, such as its last progress.
    pub message: Option<String>,
    /// When it was created.
    pub created_at: SystemTime,
    /// When it last changed.
    pub updated_at: SystemTime,
    /// When a store may forget it.
    pub expires_at: SystemTime,
}
