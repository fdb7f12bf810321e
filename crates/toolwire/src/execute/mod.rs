//! Executing a tool: [`Execution`] collects a call's options, and awaiting it runs the call.
//!
//! Every call, whether through [`Tool::execute`], [`Registry::invoke`](crate::Registry::invoke)
//! or [`Registry::dispatch`](crate::Registry::dispatch), passes the same steps in this order.
//! Each failing step short-circuits into a failed [`ToolResult`] of its own
//! [`FailureKind`](crate::FailureKind), and the later steps never run:
//!
//! 1. (registry only) the name is resolved: [`UnknownTool`](crate::FailureKind::UnknownTool);
//! 2. a signal that already fired returns the aborted result, and a zero timeout the timed-out
//!    one: [`Aborted`](crate::FailureKind::Aborted), [`TimedOut`](crate::FailureKind::TimedOut);
//! 3. the tool's [`active`](crate::ToolBuilder::active) condition is checked against the
//!    application state: [`Inactive`](crate::FailureKind::Inactive);
//! 4. `null` arguments become `{}`; the arguments are checked against the size and depth
//!    limits, validated against the compiled schema, and passed through
//!    [`parse_input`](crate::ToolBuilder::parse_input):
//!    [`InvalidInput`](crate::FailureKind::InvalidInput);
//! 5. the policy step: the tool's [`needs_approval`](crate::ToolBuilder::needs_approval) rule
//!    and the registry's [`policy`](crate::RegistryBuilder::policy) allow the call, deny it
//!    ([`Denied`](crate::FailureKind::Denied)) or park it for a human
//!    ([`Pending`](crate::FailureKind::Pending)); an answer to an approval must match the
//!    call it was issued for, or the call is denied (see [`policy`](crate::policy));
//! 6. [`authorize`](crate::ToolBuilder::authorize) runs:
//!    [`Denied`](crate::FailureKind::Denied);
//! 7. the handler runs, raced against the signal and the deadline, with panics caught (also
//!    panics raised while its future is dropped):
//!    [`Handler`](crate::FailureKind::Handler), [`Panic`](crate::FailureKind::Panic),
//!    [`Aborted`](crate::FailureKind::Aborted), [`TimedOut`](crate::FailureKind::TimedOut);
//! 8. the signal and the deadline are checked once more: an abort, or a deadline passed,
//!    seen after the handler resolved wins;
//! 9. a successful result passes through [`parse_output`](crate::ToolBuilder::parse_output):
//!    [`InvalidOutput`](crate::FailureKind::InvalidOutput); then
//!    [`debug_steps`](crate::ToolBuilder::debug_steps) sees the result.
//!
//! Each invocation runs in one `tracing` debug span, `execute_tool`, named and labelled as the
//! OpenTelemetry GenAI conventions describe a tool execution: `otel.name` is
//! `execute_tool {tool}`, `otel.kind` is `internal`, with `gen_ai.operation.name`
//! (`execute_tool`), `gen_ai.tool.name`, `gen_ai.tool.type` (`function`),
//! `gen_ai.tool.description` and `gen_ai.tool.call.id` when there are any, `error.type` (the
//! [`FailureKind`](crate::FailureKind), such as `timed_out`) and an error status on a failure,
//! and toolwire's `toolwire.invocation_id` and `toolwire.outcome` (`success`, or the failure's
//! kind, `pending` included). The conventions followed are semantic-conventions-genai v0.1.0.

mod admit;
mod body;
mod call_options;
mod entry;
mod finish;
mod future;
mod gate;
mod options;
mod outcome;
mod race;
mod resolve;
pub(crate) mod span;
mod start;

use std::future::IntoFuture;

use serde_json::Value;

pub use call_options::CallOptions;
pub(crate) use finish::{check_replayed, replay};
pub use future::ExecuteFuture;
pub(crate) use options::{Options, RulingSlot, call_options};
pub(crate) use outcome::drop_quietly;
pub(crate) use resolve::resolve;

use crate::schema::HeldValue;
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
    input: HeldValue,
    options: Options,
}

impl Execution {
    pub(crate) fn new(tool: Tool, input: Value) -> Self {
        Self { tool, input: HeldValue::new(input), options: Options::default() }
    }
}

crate::execute::options::call_options!(Execution);

impl IntoFuture for Execution {
    type Output = crate::ToolResult;
    type IntoFuture = ExecuteFuture;

    fn into_future(self) -> ExecuteFuture {
        let Execution { tool, input, options } = self;
        ExecuteFuture::new(tool, input.take(), options)
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
