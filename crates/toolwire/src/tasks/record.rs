//! [`TaskRecord`] and [`TaskState`]: a task as a store keeps it.

use std::time::{Duration, SystemTime};

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
#[non_exhaustive]
pub struct TaskLease {
    /// The process's own id, unique per process run.
    pub owner: String,
    /// When the lease lapses unless renewed.
    pub until: SystemTime,
}

/// A task, as a [`TaskStore`](super::TaskStore) keeps it. It is `#[non_exhaustive]`: a bridge
/// builds one with [`new`](Self::new) and the `with_*` setters.
///
/// ```
/// use std::time::{Duration, SystemTime};
/// use serde_json::json;
/// use toolwire::tasks::{TaskLease, TaskRecord, TaskState};
///
/// let lease = TaskLease::new("process-a", SystemTime::now() + Duration::from_secs(30));
/// let ttl = Duration::from_secs(60);
/// let record = TaskRecord::new("t1", "build", json!({"target": "all"}), "call-1", ttl)
///     .with_principal("p1")
///     .with_lease(lease)
///     .with_message("started");
/// assert_eq!(record.version, 0);
/// assert_eq!(record.state, TaskState::Working);
/// assert!(record.expires_at > record.created_at);
/// ```
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[non_exhaustive]
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

impl TaskLease {
    /// A lease of `owner` until `until`.
    pub fn new(owner: impl Into<String>, until: SystemTime) -> Self {
        Self { owner: owner.into(), until }
    }
}

impl TaskRecord {
    /// A new task `id` of the call `call_id` of `tool` with `arguments`: version 0, working,
    /// unleased, unanswered, with nothing of its bridge's, created now and kept for `ttl`.
    pub fn new(
        id: impl Into<String>,
        tool: impl Into<String>,
        arguments: Value,
        call_id: impl Into<String>,
        ttl: Duration,
    ) -> Self {
        let now = SystemTime::now();
        Self {
            id: id.into(),
            version: 0,
            tool: tool.into(),
            arguments,
            call_id: call_id.into(),
            principal: None,
            state: TaskState::Working,
            lease: None,
            answered: false,
            bridge: Value::Null,
            host_answer: None,
            message: None,
            created_at: now,
            updated_at: now,
            expires_at: now + ttl,
        }
    }

    /// Seen and steered only by `principal`.
    pub fn with_principal(mut self, principal: impl Into<String>) -> Self {
        self.principal = Some(principal.into());
        self
    }

    /// Standing at `state`.
    pub fn with_state(mut self, state: TaskState) -> Self {
        self.state = state;
        self
    }

    /// Run by the holder of `lease`.
    pub fn with_lease(mut self, lease: TaskLease) -> Self {
        self.lease = Some(lease);
        self
    }

    /// Resumed by an answer (`true`), or not.
    pub fn with_answered(mut self, answered: bool) -> Self {
        self.answered = answered;
        self
    }

    /// With what its bridge keeps.
    pub fn with_bridge(mut self, bridge: Value) -> Self {
        self.bridge = bridge;
        self
    }

    /// With the host's answer to its question.
    pub fn with_host_answer(mut self, answer: Answer) -> Self {
        self.host_answer = Some(answer);
        self
    }

    /// With a message for whoever follows it.
    pub fn with_message(mut self, message: impl Into<String>) -> Self {
        self.message = Some(message.into());
        self
    }
}
