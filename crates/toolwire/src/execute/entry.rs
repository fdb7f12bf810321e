//! The ways into the pipeline a [`Tool`] offers: a call ([`Tool::execute`]), a dry run of its
//! input steps ([`Tool::resolve`]), and its output steps on a result from elsewhere
//! ([`Tool::check_output`], [`Tool::replay`]).

use serde_json::Value;

use super::Execution;
use crate::record::{Receipt, ToolResult};
use crate::tool::{Proposal, Tool};

impl Tool {
    /// Prepares a call with `input` as its arguments; await it for the [`ToolResult`].
    ///
    /// Options are set on the returned [`Execution`]: a signal, an event callback, a timeout
    /// and the answer to an earlier suspension. `null` arguments count as `{}`.
    ///
    /// [`ToolResult`]: crate::ToolResult
    pub fn execute(&self, input: Value) -> Execution {
        Execution::new(self.clone(), input)
    }

    /// Checks `input` as a call would (activation without state, limits, schema,
    /// `parse_input`) and converts it with the [`resolve`](crate::ToolBuilder::resolve) hook into a
    /// [`Proposal`], without executing anything.
    ///
    /// # Errors
    ///
    /// The failed result a call with this input would have produced.
    pub fn resolve(&self, input: Value) -> Result<Proposal, ToolResult> {
        super::resolve(self, input, None, None)
    }

    /// Runs the output steps of a call on `result`, a result that did not come from the
    /// handler just now (for example one a journal replays): the
    /// [`parse_output`](crate::ToolBuilder::parse_output) hook and the output schema, as a call would
    /// after its handler. Failed and pending results pass through untouched.
    ///
    /// ```
    /// use serde_json::json;
    /// use toolwire::{FailureKind, Tool, ToolResult};
    ///
    /// let price = Tool::define("price")
    ///     .execute_sync(|_, _| ToolResult::ok(json!({"cents": 250}), "2.50"))
    ///     .parse_output(|r: ToolResult| if r.json()["cents"].is_u64() { Ok(r) } else { Err("no price") })
    ///     .build()
    ///     .unwrap();
    /// let stored = ToolResult::ok(json!({"cents": "?"}), "a stale record");
    /// assert_eq!(price.check_output(stored).failure_kind(), Some(FailureKind::InvalidOutput));
    /// ```
    pub fn check_output(&self, result: ToolResult) -> ToolResult {
        super::check_replayed(self, result)
    }

    /// A stored `receipt` of this tool, handed back instead of running the tool again (a
    /// journal's replay): its result goes through [`check_output`](Self::check_output),
    /// inside an `execute_tool` span marked `toolwire.replayed = true`.
    pub fn replay(&self, receipt: Receipt) -> Receipt {
        super::replay(self, receipt)
    }
}
