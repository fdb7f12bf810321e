//! What the call parsers share: the error for a response that cannot be read, and helpers
//! that read JSON with the path of what they read.

use std::fmt;

use serde_json::Value;

use crate::registry::ToolCall;
use crate::schema::type_name as kind;

/// A model response that cannot be read as a whole: its shape is wrong, or a call in it lacks
/// what every reply needs (such as the id its result must echo).
///
/// A single call whose arguments are unreadable is not an error of the response: it becomes
/// a [`ToolCall`] that fails with a message the model can act on.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ParseError {
    provider: &'static str,
    path: String,
    problem: String,
}

impl ParseError {
    pub(super) fn new(
        provider: &'static str,
        path: impl Into<String>,
        problem: impl Into<String>,
    ) -> Self {
        Self { provider, path: path.into(), problem: problem.into() }
    }

    /// Where in the response the problem is, as a JSON pointer.
    pub fn path(&self) -> &str {
        &self.path
    }
}

impl fmt::Display for ParseError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let at = if self.path.is_empty() { "(root)" } else { &self.path };
        write!(f, "invalid {} response: {at}: {}", self.provider, self.problem)
    }
}

impl std::error::Error for ParseError {}

/// Reads JSON for one provider, naming the path of each value it reads.
#[derive(Clone, Copy)]
pub(super) struct Reader {
    pub(super) provider: &'static str,
}

impl Reader {
    /// The string at `value[key]`, or an error naming `path/key`.
    pub(super) fn string<'a>(
        &self,
        value: &'a Value,
        path: &str,
        key: &str,
    ) -> Result<&'a str, ParseError> {
        match value.get(key) {
            Some(Value::String(text)) => Ok(text),
            Some(other) => {
                Err(self.error(path, key, format!("expected a string, got {}", kind(other))))
            }
            None => Err(self.error(path, key, "missing")),
        }
    }

    /// The array at `value[key]`: absent or null counts as empty.
    pub(super) fn list<'a>(
        &self,
        value: &'a Value,
        path: &str,
        key: &str,
    ) -> Result<&'a [Value], ParseError> {
        match value.get(key) {
            None | Some(Value::Null) => Ok(&[]),
            Some(Value::Array(items)) => Ok(items),
            Some(other) => {
                Err(self.error(path, key, format!("expected an array, got {}", kind(other))))
            }
        }
    }

    pub(super) fn error(&self, path: &str, key: &str, problem: impl Into<String>) -> ParseError {
        ParseError::new(self.provider, format!("{path}/{key}"), problem)
    }
}

/// A call whose arguments came as `value`: an object as it is, JSON text parsed, `null` or
/// nothing as `{}`; anything else makes a call that fails saying what arrived.
pub(super) fn call_with_arguments(call_id: &str, name: &str, value: Option<&Value>) -> ToolCall {
    match value {
        None | Some(Value::Null) => ToolCall::new(call_id, name, Value::Null),
        Some(Value::String(text)) => ToolCall::from_json_text(call_id, name, text),
        Some(Value::Object(_)) => ToolCall::new(call_id, name, value.cloned().unwrap_or_default()),
        Some(other) => {
            let mut call = ToolCall::new(call_id, name, Value::Null);
            call.malformed =
                Some(format!("the arguments must be a JSON object, got {}", kind(other)));
            call
        }
    }
}
