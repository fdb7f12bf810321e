//! [`ToolCall`]: one call a model made, and [`CallId`], the model's id for it.

use std::borrow::Borrow;
use std::fmt;
use std::ops::Deref;
use std::sync::Arc;

use serde::{Deserialize, Serialize};
use serde_json::Value;

/// The id a model gave one of its calls, echoed by the call's result; cloning it is a
/// reference-count bump.
///
/// A provider's parser gives every call one: a call Gemini sent without an id gets one made
/// by toolwire (`gemini-call-…`), which is never sent back to Gemini. It is empty only for a
/// call a host made without one. It serializes as a plain string.
#[derive(Clone, Default, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(transparent)]
pub struct CallId(Arc<str>);

impl CallId {
    /// The id as text.
    pub fn as_str(&self) -> &str {
        &self.0
    }
}

impl Deref for CallId {
    type Target = str;

    fn deref(&self) -> &str {
        &self.0
    }
}

impl Borrow<str> for CallId {
    fn borrow(&self) -> &str {
        &self.0
    }
}

impl AsRef<str> for CallId {
    fn as_ref(&self) -> &str {
        &self.0
    }
}

impl From<&str> for CallId {
    fn from(id: &str) -> Self {
        Self(Arc::from(id))
    }
}

impl From<String> for CallId {
    fn from(id: String) -> Self {
        Self(Arc::from(id))
    }
}

impl From<Arc<str>> for CallId {
    fn from(id: Arc<str>) -> Self {
        Self(id)
    }
}

impl From<&CallId> for CallId {
    fn from(id: &CallId) -> Self {
        id.clone()
    }
}

impl PartialEq<str> for CallId {
    fn eq(&self, other: &str) -> bool {
        &*self.0 == other
    }
}

impl PartialEq<&str> for CallId {
    fn eq(&self, other: &&str) -> bool {
        &*self.0 == *other
    }
}

impl fmt::Display for CallId {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}

impl fmt::Debug for CallId {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        fmt::Debug::fmt(&*self.0, f)
    }
}

/// One call a model made: the provider's id for it, the tool's name and the arguments.
///
/// The provider parsers in [`provider`](crate::provider) produce these, and
/// [`Registry::dispatch`](crate::Registry::dispatch) runs them. It serializes as
/// `{"call_id", "tool", "arguments", "malformed"?}`. It is `#[non_exhaustive]`: build one
/// with [`new`](Self::new), [`from_json_text`](Self::from_json_text) or
/// [`malformed`](Self::malformed).
///
/// ```
/// use serde_json::json;
/// use toolwire::ToolCall;
///
/// let call = ToolCall::new("call_1", "get_weather", json!({"city": "Paris"}));
/// assert_eq!(call.tool.as_ref(), "get_weather");
/// let broken = ToolCall::from_json_text("call_2", "get_weather", "{not json");
/// assert!(broken.malformed.is_some());
/// ```
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[non_exhaustive]
pub struct ToolCall {
    /// The provider's id for the call, echoed in its result; for a Gemini call that came
    /// without one, an id toolwire made (Gemini matches those results by name and order).
    pub call_id: CallId,
    /// The name of the tool called; the same field as [`Receipt::tool`](crate::Receipt::tool).
    /// Reads from `"name"` too, the key of earlier versions.
    #[serde(alias = "name")]
    pub tool: Arc<str>,
    /// The arguments, as a JSON value.
    pub arguments: Value,
    /// Why the model's arguments could not be read, when they could not: the call then fails
    /// with [`FailureKind::InvalidInput`](crate::FailureKind::InvalidInput) and this text,
    /// and nothing runs.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub malformed: Option<String>,
}

impl ToolCall {
    /// A call of `tool` with `arguments`, identified by `call_id`.
    pub fn new(call_id: impl Into<CallId>, tool: impl Into<Arc<str>>, arguments: Value) -> Self {
        Self { call_id: call_id.into(), tool: tool.into(), arguments, malformed: None }
    }

    /// A call whose arguments arrived as JSON text, as OpenAI sends them. Text that is not
    /// JSON makes a call that fails with the parser's message, for the model to correct;
    /// empty text counts as `{}`.
    pub fn from_json_text(
        call_id: impl Into<CallId>,
        tool: impl Into<Arc<str>>,
        text: &str,
    ) -> Self {
        let mut call = Self::new(call_id, tool, Value::Null);
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

    /// A call that fails before it runs because its arguments could not be read, saying
    /// `why`.
    pub fn malformed(
        call_id: impl Into<CallId>,
        tool: impl Into<Arc<str>>,
        why: impl Into<String>,
    ) -> Self {
        let mut call = Self::new(call_id, tool, Value::Null);
        call.malformed = Some(why.into());
        call
    }
}
