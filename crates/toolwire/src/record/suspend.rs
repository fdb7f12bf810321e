//! [`Request`] and [`Answer`]: what a suspended call waits for, and the host's answer.

use serde::{Deserialize, Serialize};
use serde_json::Value;

use super::principal::Principal;

/// What a suspended call waits for: a question for a human or another system.
///
/// Serializes as `{"id", "kind", "prompt", "url"?, "data"?, "expiresAt"?, "digest"?}`; the
/// optional keys appear only when set. It is `#[non_exhaustive]`: build one with
/// [`new`](Self::new) and its setters.
///
/// ```
/// use serde_json::json;
/// use toolwire::Request;
///
/// let request = Request::new("input", "Which environment?")
///     .url("https://example.com/answer")
///     .data(json!({"choices": ["staging", "prod"]}))
///     .expires_at("2030-01-01T00:00:00Z");
/// assert_eq!(request.kind, "input");
/// assert_eq!(request.expires_at.as_deref(), Some("2030-01-01T00:00:00Z"));
/// ```
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
#[non_exhaustive]
pub struct Request {
    /// Unique id; the [`Answer`] echoes it.
    pub id: String,
    /// What sort of answer is wanted, for example `"input"`, `"approval"` or `"oauth"`.
    pub kind: String,
    /// The question, as shown to whoever answers.
    pub prompt: String,
    /// A page where the request can be answered, for flows such as sign-in.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub url: Option<String>,
    /// Any structured detail the host needs to answer, such as a form schema or choices.
    /// `Some(null)` reads back as itself: a `null` present is not a `data` absent.
    #[serde(default, skip_serializing_if = "Option::is_none", deserialize_with = "present")]
    pub data: Option<Value>,
    /// When the request lapses, as an RFC 3339 timestamp; the host enforces it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub expires_at: Option<String>,
    /// For a request the pipeline made (an approval a policy asked for, or a handler's own
    /// request), the hex SHA-256 digest of the call it was made for: the tool's name, the
    /// canonical JSON of the arguments and the call id. An answer counts only for a call with
    /// the same digest.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub digest: Option<String>,
}

/// Reads a key that is present as `Some`, even when its value is `null`.
fn present<'de, D: serde::Deserializer<'de>>(deserializer: D) -> Result<Option<Value>, D::Error> {
    Value::deserialize(deserializer).map(Some)
}

impl Request {
    /// A request of `kind` asking `prompt`, with a fresh unique id.
    pub fn new(kind: impl Into<String>, prompt: impl Into<String>) -> Self {
        Self {
            id: super::id::request_id(),
            kind: kind.into(),
            prompt: prompt.into(),
            url: None,
            data: None,
            expires_at: None,
            digest: None,
        }
    }

    /// Sets the page where the request can be answered.
    pub fn url(mut self, url: impl Into<String>) -> Self {
        self.url = Some(url.into());
        self
    }

    /// Sets structured detail for the host.
    pub fn data(mut self, data: Value) -> Self {
        self.data = Some(data);
        self
    }

    /// Sets when the request lapses, as an RFC 3339 timestamp.
    pub fn expires_at(mut self, timestamp: impl Into<String>) -> Self {
        self.expires_at = Some(timestamp.into());
        self
    }
}

/// The host's resolution of a [`Request`], handed to the retried call through
/// [`ToolContext::answer`](crate::ToolContext::answer).
///
/// Serializes as `{"id", "ok", "data"?, "reason"?}`. It is `#[non_exhaustive]`: build one
/// with [`accept`](Self::accept) or [`decline`](Self::decline).
///
/// ```
/// use serde_json::json;
/// use toolwire::Answer;
///
/// let yes = Answer::accept("req-1", json!({"env": "staging"}));
/// assert!(yes.ok);
/// let no = Answer::decline("req-1", "not today");
/// assert_eq!(no.reason.as_deref(), Some("not today"));
/// ```
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[non_exhaustive]
pub struct Answer {
    /// The id of the request this answers.
    pub id: String,
    /// `true` when the request was accepted, `false` when it was declined.
    pub ok: bool,
    /// The answer's content, when accepted; `null` otherwise.
    #[serde(default, skip_serializing_if = "Value::is_null")]
    pub data: Value,
    /// Why the request was declined, when a reason was given.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub reason: Option<String>,
    /// Who answered, when the host said (see [`by`](Self::by)).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub by: Option<Principal>,
    /// When it was answered, as an RFC 3339 UTC timestamp, set with [`by`](Self::by).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub at: Option<String>,
}

impl Answer {
    /// Accepts request `id` with `data`.
    pub fn accept(id: impl Into<String>, data: Value) -> Self {
        Self { id: id.into(), ok: true, data, reason: None, by: None, at: None }
    }

    /// Declines request `id`, saying why.
    pub fn decline(id: impl Into<String>, reason: impl Into<String>) -> Self {
        let reason = Some(reason.into());
        Self { id: id.into(), ok: false, data: Value::Null, reason, by: None, at: None }
    }

    /// Records that `who` gives this answer, now: a journal keeps both with the answer, and
    /// the receipt of the call it settles names them in its policy record
    /// ([`PolicyRecord::answered_by`](crate::policy::PolicyRecord::answered_by)).
    ///
    /// ```
    /// use toolwire::{Answer, Principal};
    ///
    /// let yes = Answer::accept("req-1", serde_json::Value::Null).by(Principal::user("ana"));
    /// assert_eq!(yes.by.as_ref().map(|p| p.name()), Some("ana"));
    /// assert!(yes.at.is_some());
    /// ```
    #[must_use]
    pub fn by(mut self, who: Principal) -> Self {
        self.by = Some(who);
        self.at = Some(humantime::format_rfc3339_seconds(std::time::SystemTime::now()).to_string());
        self
    }
}
