//! Whether a tool's handler asks for input of its own: a pending result with its own
//! [`Request`](crate::Request), such as "which environment?", answered before the call goes on.

use crate::tool::{Tool, ToolBuilder};

impl ToolBuilder {
    /// Declares that the handler may return [`ToolResult::pending`](crate::ToolResult::pending)
    /// with a request of its own. Default `false`.
    ///
    /// A registry binds such a request to the call that made it, as it binds approvals: its
    /// id is keyed to the tool, the call id and the arguments, so only an answer made for this
    /// very call reaches the handler. To do that it keeps a copy of the arguments, which only
    /// tools that ask need. In a registry, a handler that asks without declaring it fails its
    /// call, saying so; a direct [`Tool::execute`] returns its request as it is.
    ///
    /// The approval of [`needs_approval`](Self::needs_approval) needs no declaration: the
    /// policy step asks it before the handler runs.
    ///
    /// ```
    /// use serde_json::json;
    /// use toolwire::{Registry, Request, Tool, ToolResult};
    ///
    /// let deploy = Tool::define("deploy")
    ///     .asks_for_input(true)
    ///     .execute_sync(|_, ctx| match ctx.answer() {
    ///         Some(answer) => ToolResult::ok(answer.data.clone(), "deploying"),
    ///         None => ToolResult::pending(Request::new("input", "Which environment?")),
    ///     })
    ///     .build()?;
    /// assert!(deploy.asks_for_input());
    /// # Ok::<(), toolwire::DefineError>(())
    /// ```
    pub fn asks_for_input(mut self, asks: bool) -> Self {
        self.asks_for_input = asks;
        self
    }
}

impl Tool {
    /// Whether the handler may ask for input of its own, as declared with
    /// [`ToolBuilder::asks_for_input`].
    pub fn asks_for_input(&self) -> bool {
        self.inner.asks_for_input
    }
}
