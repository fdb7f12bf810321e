//! What the call parsers share: helpers that read JSON with the path of what they read, and
//! the rule for arguments in any form.

use serde_json::Value;

use super::Provider;
use super::parse_error::{ParseError, ParseErrorKind};
use crate::record::ToolCall;
use crate::schema::type_name as kind;

/// Reads JSON for one provider, naming the path of each value it reads.
#[derive(Clone, Copy)]
pub(super) struct Reader {
    pub(super) provider: Provider,
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
            Some(other) => Err(self.wrong_type(path, key, "a string", other)),
            None => Err(self.error(ParseErrorKind::MissingField, path, key, "missing")),
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
            Some(other) => Err(self.wrong_type(path, key, "an array", other)),
        }
    }

    /// An error at `path/key`.
    pub(super) fn error(
        &self,
        kind: ParseErrorKind,
        path: &str,
        key: &str,
        problem: impl Into<String>,
    ) -> ParseError {
        ParseError::new(self.provider, kind, format!("{path}/{key}"), problem)
    }

    /// An error at `path` itself: the value there is not a reply of the expected shape.
    pub(super) fn not_a_reply(&self, path: &str, expected: &str) -> ParseError {
        ParseError::new(
            self.provider,
            ParseErrorKind::NotAReply,
            path,
            format!("expected {expected}"),
        )
    }

    fn wrong_type(&self, path: &str, key: &str, expected: &str, got: &Value) -> ParseError {
        let problem = format!("expected {expected}, got {}", kind(got));
        self.error(ParseErrorKind::WrongType, path, key, problem)
    }
}

/// A call whose arguments came as `value`: an object as it is, JSON text parsed, `null` or
/// nothing as `{}`; anything else makes a call that fails saying what arrived.
pub(super) fn call_with_arguments(call_id: &str, name: &str, value: Option<&Value>) -> ToolCall {
    match value {
        None | Some(Value::Null) => ToolCall::new(call_id, name, Value::Null),
        Some(Value::String(text)) => ToolCall::from_json_text(call_id, name, text),
        Some(Value::Object(_)) => ToolCall::new(call_id, name, value.cloned().unwrap_or_default()),
        Some(other) => malformed(
            call_id,
            name,
            format!("the arguments must be a JSON object, got {}", kind(other)),
        ),
    }
}

/// A call that fails with `why`, for the model to read, and carries no arguments.
pub(super) fn malformed(call_id: &str, name: &str, why: impl Into<String>) -> ToolCall {
    let mut call = ToolCall::new(call_id, name, Value::Null);
    call.malformed = Some(why.into());
    call
}

/// A call's arguments as the providers take them back: an object, or `{}` for a call whose
/// arguments could not be read.
pub(super) fn object_arguments(call: &ToolCall) -> Value {
    if call.arguments.is_object() && call.malformed.is_none() {
        call.arguments.clone()
    } else {
        Value::Object(serde_json::Map::new())
    }
}
