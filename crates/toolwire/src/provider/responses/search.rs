//! The client-executed `tool_search` of OpenAI Responses ([`CatalogForm::ClientSearch`]):
//! the tool in the request, its `tool_search_call` items read as calls of
//! [`SEARCH_TOOL`], and the `tool_search_output` items that answer them with the found
//! tools' definitions.
//!
//! [`CatalogForm::ClientSearch`]: crate::provider::CatalogForm::ClientSearch

use serde_json::{Value, json};

use crate::provider::catalog::CatalogTools;
use crate::record::{Receipt, ToolCall};
use crate::registry::SEARCH_TOOL;

/// The type of the output item that asks the client to search.
pub(super) const CALL_ITEM: &str = "tool_search_call";

/// The loaded tools, then the search as a `tool_search` tool executed by the client, with
/// the search function's description and parameters. The deferred tools are not sent: each
/// `tool_search_output` carries the definitions it found.
pub(super) fn tools(tools: &CatalogTools<'_>) -> Vec<Value> {
    let mut out: Vec<Value> = tools.loaded.to_vec();
    let mut search = json!({"type": "tool_search", "execution": "client"});
    for field in ["description", "parameters"] {
        if let Some(value) = tools.search.get(field) {
            search[field] = value.clone();
        }
    }
    out.push(search);
    out
}

/// Whether `item` is a search the client runs: a `tool_search_call` whose `execution` is
/// `client` (or unsaid). A hosted search (`server`) is OpenAI's own, and stays in the history
/// as it came.
pub(super) fn is_call(item: &Value) -> bool {
    item.get("type").and_then(Value::as_str) == Some(CALL_ITEM)
        && item.get("execution").and_then(Value::as_str).is_none_or(|how| how == "client")
}

/// Whether `reply`'s output holds a `tool_search_call` item with `call_id`.
pub(super) fn asked(items: &[Value], call_id: &str) -> bool {
    items
        .iter()
        .any(|item| is_call(item) && item.get("call_id").and_then(Value::as_str) == Some(call_id))
}

/// The `tool_search_call` item of `call`, as a turn that was cut off is taken back.
pub(super) fn call_item(call: &ToolCall) -> Value {
    json!({"type": CALL_ITEM, "call_id": call.call_id.as_str(), "execution": "client",
        "arguments": crate::provider::parse::object_arguments(call)})
}

/// The `tool_search_output` that answers the search `call_id` with `receipt`: the found
/// tools' definitions, or none when the search failed or found nothing.
pub(super) fn output(call_id: &str, receipt: Option<&Receipt>) -> Value {
    let found = receipt
        .filter(|receipt| receipt.result.is_success())
        .and_then(|receipt| receipt.result.json().get("definitions"))
        .and_then(Value::as_array)
        .cloned()
        .unwrap_or_default();
    json!({"type": "tool_search_output", "call_id": call_id, "execution": "client",
        "status": "completed", "tools": found})
}

/// Whether `receipt` answers a search, by its tool's name.
pub(super) fn is_search(receipt: &Receipt) -> bool {
    &*receipt.tool == SEARCH_TOOL
}
