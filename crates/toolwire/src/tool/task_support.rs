//! [`TaskSupport`]: whether a call of the tool may outlive the request that started it.

use crate::tool::{Tool, ToolBuilder};

/// Whether a bridge may run a call of the tool as a task: in the background, past the
/// request that started it, polled by the client until it ends. An MCP server (the tasks
/// extension of MCP 2026-07-28) is such a bridge; a plain [`Registry::invoke`](crate::Registry::invoke)
/// ignores it.
///
/// Only the host decides: a client's hint never makes a [`Forbidden`](Self::Forbidden) tool
/// a task.
#[non_exhaustive]
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Hash)]
pub enum TaskSupport {
    /// Every call is answered within its request (the default).
    #[default]
    Forbidden,
    /// A call that has not finished quickly becomes a task, for clients that can follow
    /// one; others wait for the result as for any call.
    Optional,
    /// Every call is a task; a client that cannot follow one is refused.
    Required,
}

impl ToolBuilder {
    /// Declares whether calls of the tool may run as tasks (see [`TaskSupport`]), for tools
    /// that take long: a build, a deploy, a long query. Default [`TaskSupport::Forbidden`].
    pub fn task_support(mut self, support: TaskSupport) -> Self {
        self.task_support = support;
        self
    }
}

impl Tool {
    /// Whether calls of the tool may run as tasks, as declared with
    /// [`ToolBuilder::task_support`].
    pub fn task_support(&self) -> TaskSupport {
        self.inner.task_support
    }
}
