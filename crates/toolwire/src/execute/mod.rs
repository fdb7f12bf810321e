//! Executing a tool: [`Execution`] collects a call's options, and awaiting it runs the call.
//!
//! Every call passes the same steps, in this order, and each failing step short-circuits
//! into a failed [`ToolResult`] of its own [`FailureKind`](crate::FailureKind):
//!
//! 1. a signal that already fired returns the aborted result, and nothing runs;
//! 2. `null` arguments become `{}`, and the arguments are validated against the compiled
//!    parameter schema;
//! 3. the handler runs, raced against the signal and the deadline, with panics caught;
//! 4. the signal is checked once more: an abort seen after the handler resolved wins.

mod future;
mod outcome;
mod race;
mod start;

use std::future::IntoFuture;
use std::sync::Arc;
use std::time::Duration;

use serde_json::Value;

pub use future::ExecuteFuture;

use crate::abort::AbortSignal;
use crate::context::EventSink;
use crate::suspend::Answer;
use crate::tool::Tool;

/// A prepared call of one tool; made by [`Tool::execute`], run by `.await`.
///
/// Every option is optional:
///
/// ```
/// # #[tokio::main(flavor = "current_thread")] async fn main() -> Result<(), toolwire::DefineError> {
/// use std::time::Duration;
/// use serde_json::json;
/// use toolwire::{AbortController, Tool, ToolResult};
///
/// let lookup = Tool::define("lookup")
///     .execute_sync(|args, _ctx| ToolResult::ok(json!({"city": args["city"]}), "ok"))
///     .build()?;
/// let ctl = AbortController::new();
/// let result = lookup
///     .execute(json!({"city": "Jakarta"}))
///     .signal(ctl.signal())
///     .on_event(|event| println!("{event}"))
///     .timeout(Duration::from_secs(5))
///     .await;
/// assert!(result.is_success());
/// # Ok(()) }
/// ```
#[must_use = "an execution does nothing until it is awaited"]
pub struct Execution {
    tool: Tool,
    input: Value,
    options: Options,
}

/// A call's options, shared by every way of running a tool.
#[derive(Clone, Default)]
pub(crate) struct Options {
    pub(crate) signal: Option<AbortSignal>,
    pub(crate) events: Option<EventSink>,
    pub(crate) timeout: Option<Duration>,
    pub(crate) answer: Option<Arc<Answer>>,
}

impl Execution {
    pub(crate) fn new(tool: Tool, input: Value) -> Self {
        Self {
            tool,
            input,
            options: Options::default(),
        }
    }

    /// Cancels the call when `signal` fires. The result is then the aborted failure, at once,
    /// and an async handler's future is dropped.
    pub fn signal(mut self, signal: AbortSignal) -> Self {
        self.options.signal = Some(signal);
        self
    }

    /// Receives the events the handler emits, in order, on the handler's task.
    pub fn on_event(mut self, callback: impl Fn(Value) + Send + Sync + 'static) -> Self {
        self.options.events = Some(Arc::new(callback));
        self
    }

    /// Gives the call a time budget. The handler sees it through
    /// [`ToolContext::timeout`](crate::ToolContext::timeout) and
    /// [`deadline`](crate::ToolContext::deadline); when it passes, the handler's signal fires
    /// (the caller's own signal does not) and the result is the timed-out failure.
    ///
    /// Enforcing a timeout on an async handler needs a Tokio runtime with its time driver.
    pub fn timeout(mut self, timeout: Duration) -> Self {
        self.options.timeout = Some(timeout);
        self
    }

    /// Retries a suspended call with the host's answer, which the handler reads through
    /// [`ToolContext::answer`](crate::ToolContext::answer).
    pub fn answer(mut self, answer: Answer) -> Self {
        self.options.answer = Some(Arc::new(answer));
        self
    }
}

impl IntoFuture for Execution {
    type Output = crate::ToolResult;
    type IntoFuture = ExecuteFuture;

    fn into_future(self) -> ExecuteFuture {
        ExecuteFuture::new(self.tool, self.input, self.options)
    }
}

impl std::fmt::Debug for Execution {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Execution")
            .field("tool", &self.tool.name())
            .field("input", &self.input)
            .field("signal", &self.options.signal)
            .field("timeout", &self.options.timeout)
            .field("answer", &self.options.answer)
            .finish_non_exhaustive()
    }
}
