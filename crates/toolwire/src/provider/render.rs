//! What the result renderers share: the text a model reads for one result.

use crate::record::ToolResult;

/// The text of `result` for the model: its text, followed by its JSON payload when it has
/// one. A failure's text is its message; an empty result reads as an empty string.
///
/// A pending result reads as `awaiting approval: <prompt>` (for a request of kind
/// `"approval"`) or `awaiting input: <prompt>`, and nothing else: the request's id and data are
/// the host's, and a model that saw them could forge an answer.
pub(super) fn model_text(result: &ToolResult) -> String {
    if let Some(request) = result.pending_request() {
        let waiting_for = if request.kind == "approval" { "approval" } else { "input" };
        return format!("awaiting {waiting_for}: {}", request.prompt);
    }
    let json = result.json();
    match (result.text(), json.is_null()) {
        (Some(text), true) => text.to_owned(),
        (None, true) => String::new(),
        (None, false) => json.to_string(),
        (Some(text), false) => format!("{text}\n{json}"),
    }
}
