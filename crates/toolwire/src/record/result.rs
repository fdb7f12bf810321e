//! [`ToolResult`], the value every call yields, and [`FailureKind`], why a call failed.

use std::fmt;

use serde::de::{Deserialize, Deserializer};
use serde::ser::{Serialize, SerializeStruct, Serializer};
use serde_json::Value;

use super::suspend::Request;
use super::text::{MAX_FAILURE_TEXT, clip};
use crate::media::Part;

/// Why a [`ToolResult`] is not a success.
///
/// Read it with [`ToolResult::failure_kind`]. New kinds may be added. It serializes as its
/// [`as_str`](FailureKind::as_str) name.
#[non_exhaustive]
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, serde::Serialize, serde::Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum FailureKind {
    /// The caller's signal fired, before or during the call.
    Aborted,
    /// The call's deadline passed before the handler finished.
    TimedOut,
    /// The arguments did not match the tool's parameter schema.
    InvalidInput,
    /// The host's authorization check refused the call.
    Denied,
    /// No tool has the name that was called.
    UnknownTool,
    /// The tool exists but is not active for this caller.
    Inactive,
    /// The handler's output was rejected by the output check.
    InvalidOutput,
    /// The handler returned an error or a failed result.
    Handler,
    /// The handler panicked.
    Panic,
    /// The call is suspended until a host answers its [`Request`]; see
    /// [`ToolResult::pending_request`].
    Pending,
    /// A journal recorded that the call started but not that it finished (the process died
    /// in between), and the tool is not idempotent: whether it took effect is unknown until
    /// the host resolves it.
    UnknownOutcome,
    /// Another process holds a live lease on this call id in a journal, and the call did not
    /// finish there within the caller's deadline; the call did not run here.
    InProgress,
}

impl FailureKind {
    /// A short lowercase name, as used in logs and traces: `"aborted"`, `"timed_out"`, ...
    pub const fn as_str(self) -> &'static str {
        match self {
            Self::Aborted => "aborted",
            Self::TimedOut => "timed_out",
            Self::InvalidInput => "invalid_input",
            Self::Denied => "denied",
            Self::UnknownTool => "unknown_tool",
            Self::Inactive => "inactive",
            Self::InvalidOutput => "invalid_output",
            Self::Handler => "handler",
            Self::Panic => "panic",
            Self::Pending => "pending",
            Self::UnknownOutcome => "unknown_outcome",
            Self::InProgress => "in_progress",
        }
    }
}

impl fmt::Display for FailureKind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// The outcome of one tool call, as the model reads it.
///
/// It serializes exactly as the seed documents show, `{"success": bool, "json": value | null,
/// "text": string | null}`. A failure's `json` is `null`.
///
/// A pending result (see [`ToolResult::pending`]) serializes as a failure whose `json` holds
/// the request under `"pending"` and whose `text` is the request's prompt:
/// `{"success": false, "json": {"pending": {"id": .., "kind": .., "prompt": ..}}, "text": ..}`.
///
/// A result may also carry content [`Part`]s (images, audio, files, resources and links; see
/// [`media`](crate::media)), which serialize under `"parts"`, present only when there are
/// some. A model reads the result's text (its JSON when it has no text and no parts), then
/// the parts in order, each in its provider's native form.
///
/// ```
/// use serde_json::json;
/// use toolwire::{FailureKind, ToolResult};
///
/// let ok = ToolResult::ok(json!({"value": 42}), "21 x 2 = 42");
/// assert!(ok.is_success());
/// assert_eq!(
///     serde_json::to_value(&ok).unwrap(),
///     json!({"success": true, "json": {"value": 42}, "text": "21 x 2 = 42"})
/// );
///
/// let failed = ToolResult::failure("Something went wrong");
/// assert_eq!(failed.failure_kind(), Some(FailureKind::Handler));
/// assert_eq!(failed.text(), Some("Something went wrong"));
/// ```
#[derive(Debug, Clone, PartialEq)]
pub struct ToolResult {
    json: Value,
    text: Option<String>,
    outcome: Outcome,
    parts: Parts,
}

/// A result's parts, boxed so that a result without any (most of them) stays small: a
/// result is moved through every step of a call.
#[derive(Debug, Clone, Default)]
// One pointer inline instead of a `Vec`'s three: the extra allocation is paid only by
// results that carry parts.
#[allow(clippy::box_collection)]
struct Parts(Option<Box<Vec<Part>>>);

impl Parts {
    fn as_slice(&self) -> &[Part] {
        self.0.as_deref().map_or(&[], Vec::as_slice)
    }

    fn as_vec(&mut self) -> &mut Vec<Part> {
        self.0.get_or_insert_with(Box::default)
    }
}

impl PartialEq for Parts {
    fn eq(&self, other: &Self) -> bool {
        self.as_slice() == other.as_slice()
    }
}

impl From<Vec<Part>> for Parts {
    fn from(parts: Vec<Part>) -> Self {
        Self((!parts.is_empty()).then(|| Box::new(parts)))
    }
}

/// Success, or the reason for failure; the pending request lives here.
#[derive(Debug, Clone, PartialEq)]
enum Outcome {
    Success,
    Failure(FailureKind),
    Pending(Box<Request>),
}

impl ToolResult {
    /// A success carrying a structured payload and a text summary.
    pub fn ok(json: Value, text: impl Into<String>) -> Self {
        Self { json, text: Some(text.into()), outcome: Outcome::Success, parts: Parts::default() }
    }

    /// A success with a structured payload and no text.
    pub fn ok_json(json: Value) -> Self {
        Self { json, text: None, outcome: Outcome::Success, parts: Parts::default() }
    }

    /// A failure reported by the tool itself ([`FailureKind::Handler`]); its `json` is null.
    pub fn failure(text: impl Into<String>) -> Self {
        Self::failed(FailureKind::Handler, text)
    }

    /// A failure of the given kind. The pipeline uses it; so may hosts that reject a call
    /// themselves, for example with [`FailureKind::Denied`].
    ///
    /// [`FailureKind::Pending`] is reserved for [`ToolResult::pending`]; passing it here gives
    /// a [`FailureKind::Handler`] failure. A text longer than 16 KiB is cut short, so a
    /// failure never carries a huge input back to the model.
    pub fn failed(kind: FailureKind, text: impl Into<String>) -> Self {
        let kind = if kind == FailureKind::Pending { FailureKind::Handler } else { kind };
        let mut text: String = text.into();
        if text.len() > MAX_FAILURE_TEXT {
            text = clip(&text, MAX_FAILURE_TEXT).into_owned();
        }
        Self {
            json: Value::Null,
            text: Some(text),
            outcome: Outcome::Failure(kind),
            parts: Parts::default(),
        }
    }

    /// The same result with `kind` as its failure kind, as a receipt read from storage
    /// restores it; successes and pending results keep theirs.
    pub(crate) fn with_failure_kind(mut self, kind: Option<FailureKind>) -> Self {
        if let (Outcome::Failure(_), Some(kind)) = (&self.outcome, kind)
            && kind != FailureKind::Pending
        {
            self.outcome = Outcome::Failure(kind);
        }
        self
    }

    /// A suspended call: the host must answer `request` and run the call again with
    /// [`Execution::answer`](crate::Execution::answer).
    pub fn pending(request: Request) -> Self {
        let json = pending_json(&request);
        let text = Some(request.prompt.clone());
        Self { json, text, outcome: Outcome::Pending(Box::new(request)), parts: Parts::default() }
    }

    /// A success whose content is `parts` alone, with no JSON and no text.
    ///
    /// ```
    /// use toolwire::ToolResult;
    /// use toolwire::media::Part;
    ///
    /// let result = ToolResult::from_parts(vec![Part::text("a chart:"), Part::image("image/png", b"\x89PNG\r\n\x1a\n".to_vec())]);
    /// assert!(result.is_success());
    /// assert_eq!(result.text(), None);
    /// assert_eq!(result.parts().len(), 2);
    /// ```
    pub fn from_parts(parts: Vec<Part>) -> Self {
        Self { json: Value::Null, text: None, outcome: Outcome::Success, parts: parts.into() }
    }

    /// The same result with `parts` after its own; a failure or a pending result keeps none,
    /// so a model never reads media beside an error it did not make.
    #[must_use]
    pub fn with_parts(mut self, parts: impl IntoIterator<Item = Part>) -> Self {
        let mut parts = parts.into_iter().peekable();
        if self.is_success() && parts.peek().is_some() {
            self.parts.as_vec().extend(parts);
        }
        self
    }

    /// Its content parts, in order; empty for a result of JSON and text alone.
    pub fn parts(&self) -> &[Part] {
        self.parts.as_slice()
    }

    /// Its content parts, to change in place (the agent loop puts stand-ins in place of parts a
    /// provider would refuse).
    pub fn parts_mut(&mut self) -> &mut Vec<Part> {
        self.parts.as_vec()
    }

    /// Whether the call succeeded.
    pub fn is_success(&self) -> bool {
        matches!(self.outcome, Outcome::Success)
    }

    /// Why the call failed, or `None` for a success.
    pub fn failure_kind(&self) -> Option<FailureKind> {
        match &self.outcome {
            Outcome::Success => None,
            Outcome::Failure(kind) => Some(*kind),
            Outcome::Pending(_) => Some(FailureKind::Pending),
        }
    }

    /// Whether the call failed because its signal fired.
    pub fn is_aborted(&self) -> bool {
        self.failure_kind() == Some(FailureKind::Aborted)
    }

    /// Whether the call failed because its deadline passed.
    pub fn is_timed_out(&self) -> bool {
        self.failure_kind() == Some(FailureKind::TimedOut)
    }

    /// The request a suspended call waits on, if this result is pending.
    pub fn pending_request(&self) -> Option<&Request> {
        match &self.outcome {
            Outcome::Pending(request) => Some(request),
            _ => None,
        }
    }

    /// The structured payload: `null` for failures, and `{"pending": request}` for a pending
    /// result.
    pub fn json(&self) -> &Value {
        &self.json
    }

    /// The text summary, error message or abort reason. A pending result's text is its
    /// request's prompt.
    pub fn text(&self) -> Option<&str> {
        self.text.as_deref()
    }

    /// Splits the result into its payload and text, as they serialize.
    pub fn into_parts(self) -> (Value, Option<String>) {
        (self.json, self.text)
    }
}

fn pending_json(request: &Request) -> Value {
    let request = serde_json::to_value(request).unwrap_or(Value::Null);
    let mut map = serde_json::Map::with_capacity(1);
    map.insert("pending".to_owned(), request);
    Value::Object(map)
}

impl Serialize for ToolResult {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        let parts = self.parts.as_slice();
        let fields = if parts.is_empty() { 3 } else { 4 };
        let mut out = serializer.serialize_struct("ToolResult", fields)?;
        out.serialize_field("success", &self.is_success())?;
        out.serialize_field("json", &self.json)?;
        out.serialize_field("text", &self.text)?;
        if parts.is_empty() {
            out.skip_field("parts")?;
        } else {
            out.serialize_field("parts", parts)?;
        }
        out.end()
    }
}

/// The seeds' shape, as it reads back.
#[derive(serde::Deserialize)]
struct Wire {
    success: bool,
    #[serde(default)]
    json: Value,
    #[serde(default)]
    text: Option<String>,
    #[serde(default)]
    parts: Vec<Part>,
}

impl<'de> Deserialize<'de> for ToolResult {
    /// Reads `{"success", "json", "text"}`. A failure reads back as a
    /// [`FailureKind::Handler`] failure, unless its `json` holds a pending request, which makes
    /// it pending again; a [`Receipt`](crate::Receipt) keeps the exact kind.
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        let Wire { success, json, text, parts } = Wire::deserialize(deserializer)?;
        let outcome = if success {
            Outcome::Success
        } else {
            match json.get("pending").map(Request::deserialize) {
                Some(Ok(request)) => Outcome::Pending(Box::new(request)),
                _ => Outcome::Failure(FailureKind::Handler),
            }
        };
        Ok(Self { json, text, outcome, parts: parts.into() })
    }
}
