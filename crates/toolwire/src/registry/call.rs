//! [`ToolCall`]: one call a model made, in the shape every provider's calls are parsed into.

use serde::{Deserialize, Serialize};
use serde_json::Value;

/// One call a model made: the provider's id for it, the tool's name and the arguments.
///
/// The provider parsers in [`provider`](crate::provider) produce these, and
/// [`Registry::dispatch`](crate::Registry::dispatch) runs them.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ToolCall {
    /// The provider's id for the call, echoed in its result. Empty when the provider gave
    /// none (Gemini's ids are optional); results are then matched by order.
    pub call_id: String,
    /// The name of the tool called.
    pub name: String,
    /// The arguments, as a JSON value.
    pub arguments: Value,
    /// Why the model's arguments could not be read, when they could not: the call then fails
    /// with [`FailureKind::InvalidInput`](crate::FailureKind::InvalidInput) and this text,
    /// and nothing runs.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub malformed: Option<String>,
}

impl ToolCall {
    /// A call of `name` with `arguments`, identified by `call_id`.
    pub fn new(call_id: impl Into<String>, name: impl Into<String>, arguments: Value) -> Self {
        Self { call_id: call_id.into(), name: name.into(), arguments, malformed: None }
    }

    /// A call whose arguments arrived as JSON text, as OpenAI sends them. Text that is not
    /// JSON makes a call that fails with the parser's message, for the model to correct;
    /// empty text counts as `{}`.
    pub fn from_json_text(call_id: impl Into<String>, name: impl Into<String>, text: &str) -> Self {
        let mut call = Self::new(call_id, name, Value::Null);
        if text.trim().is_empty() {
            return call;
        }
        match serde_json::from_str(text) {
            Ok(arguments) => call.arguments = arguments,
            Err(error) => {
                call.malformed = Some(format!("the arguments are not valid JSON: {error}"))
            }
        }
        call
    }
}
