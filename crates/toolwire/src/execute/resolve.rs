//! Proposals: the checks of a call without the call, for hosts that hand a choice back.

use std::any::Any;
use std::panic::{AssertUnwindSafe, catch_unwind};

use serde_json::Value;

use super::admit::admit;
use super::outcome::{hook_panicked, invalid_input};
use crate::record::ToolResult;
use crate::schema::ArgumentLimits;
use crate::tool::Tool;
use crate::tool::hooks::Proposal;

/// Admits `input` as a call of `tool` would, then converts it with the tool's `resolve` hook.
pub(crate) fn resolve(
    tool: &Tool,
    input: Value,
    limits: Option<ArgumentLimits>,
    state: Option<&dyn Any>,
) -> Result<Proposal, ToolResult> {
    let args = admit(tool, input, limits, state)?;
    let Some(resolve) = &tool.inner().hooks.resolve else {
        return Ok(Proposal { tool_id: tool.name().to_owned(), input: args });
    };
    match catch_unwind(AssertUnwindSafe(|| resolve(args))) {
        Ok(proposal) => proposal.map_err(|why| invalid_input(tool.name(), &why)),
        Err(payload) => Err(hook_panicked(tool.name(), "resolver", payload)),
    }
}
