//! OpenAI Responses' parallel wrapper: some models put parallel calls into one call of
//! `multi_tool_use.parallel` (or bare `parallel`) whose arguments are
//! `{"tool_uses": [{"recipient_name": "functions.NAME", "parameters": {..}}, ..]}`. The wrapper
//! is not a tool anyone registered, so it is expanded into the calls it holds.

use serde_json::{Value, json};

use crate::provider::parse::{call_with_arguments, malformed};
use crate::record::ToolCall;

/// The wrapper's full name, always expanded.
const QUALIFIED: &str = "multi_tool_use.parallel";

/// The id of the `i`th call (from 0) expanded from the wrapper call `call_id`.
pub(super) fn derived_id(call_id: &str, i: usize) -> String {
    format!("{call_id}_{i}")
}

/// The calls a wrapper holds, in order, or `None` when `call` is not a wrapper.
///
/// `multi_tool_use.parallel` is always a wrapper; a call of bare `parallel` only when its
/// arguments have the `tool_uses` array, so a tool really named `parallel` still runs. A
/// wrapper whose arguments cannot be read stays one call that fails saying so.
pub(super) fn expand(call: &ToolCall) -> Option<Vec<ToolCall>> {
    let uses = tool_uses(&call.arguments);
    let is_wrapper = &*call.tool == QUALIFIED || (&*call.tool == "parallel" && uses.is_some());
    if !is_wrapper || call.malformed.is_some() {
        return is_wrapper.then(|| vec![call.clone()]);
    }
    let expanded = match uses {
        Some(uses) if !uses.is_empty() => {
            uses.iter().enumerate().map(|(i, one)| inner(call, i, one)).collect()
        }
        _ => vec![malformed(
            &call.call_id,
            &call.tool,
            "the arguments must hold a non-empty `tool_uses` array",
        )],
    };
    Some(expanded)
}

/// The calls `call` stands for: the ones it wraps, or itself.
pub(super) fn expand_into(call: ToolCall, out: &mut Vec<ToolCall>) {
    match expand(&call) {
        Some(calls) => out.extend(calls),
        None => out.push(call),
    }
}

/// The one output text for a wrapper whose calls are `inner`: a JSON array of
/// `{"recipient_name", "output"}`, in call order, with `text` giving each call's output.
pub(super) fn fold(inner: &[ToolCall], text: impl Fn(&str) -> String) -> String {
    let outputs = inner.iter().map(|one| {
        let recipient = format!("functions.{}", one.tool);
        json!({"recipient_name": recipient, "output": text(&one.call_id)})
    });
    Value::Array(outputs.collect()).to_string()
}

/// The `i`th wrapped call.
fn inner(wrapper: &ToolCall, i: usize, one: &Value) -> ToolCall {
    let id = derived_id(&wrapper.call_id, i);
    match one.get("recipient_name").and_then(Value::as_str) {
        Some(recipient) => {
            let name = recipient.strip_prefix("functions.").unwrap_or(recipient);
            call_with_arguments(&id, name, one.get("parameters"))
        }
        None => malformed(&id, "", format!("tool_uses/{i} has no `recipient_name` string")),
    }
}

/// The `tool_uses` array of a wrapper's arguments.
fn tool_uses(arguments: &Value) -> Option<&Vec<Value>> {
    arguments.get("tool_uses").and_then(Value::as_array)
}
