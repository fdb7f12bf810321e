//! What the result renderers share: the text a model reads for one result.

use crate::record::ToolResult;

/// The text of `result` for the model: its text, followed by its JSON payload when it has
/// one. A failure's text is its message; an empty result reads as an empty string.
pub(super) fn model_text(result: &ToolResult) -> String {
    let json = result.json();
    match (result.text(), json.is_null()) {
        (Some(text), true) => text.to_owned(),
        (None, true) => String::new(),
        (None, false) => json.to_string(),
        (Some(text), false) => format!("{text}\n{json}"),
    }
}
