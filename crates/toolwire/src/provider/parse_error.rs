//! The error for a model reply that cannot be read: which provider, what kind of problem,
//! and where, as a JSON pointer.

use std::fmt;
use std::sync::Arc;

use super::Provider;

/// What kind of problem a [`ParseError`] reports. New kinds may be added.
#[non_exhaustive]
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum ParseErrorKind {
    /// The value is not a reply of the provider's shape, such as a string where a message
    /// belongs.
    NotAReply,
    /// A field every reply needs, such as a call's id or name, is absent.
    MissingField,
    /// A field has the wrong JSON type, such as a number where a string belongs.
    WrongType,
    /// A streamed block or call was started twice at one index.
    DuplicateBlock,
}

/// A model response that cannot be read as a whole: its shape is wrong, or a call in it lacks
/// what every reply needs (such as the id its result must echo).
///
/// A single call whose arguments are unreadable is not an error of the response: it becomes
/// a [`ToolCall`](crate::ToolCall) that fails with a message the model can act on.
///
/// [`path`](Self::path) is a JSON pointer. For a `parse_calls` function it points into the
/// reply that was passed; for a streaming `CallAccumulator` it points into the chunk or event
/// that was pushed when the problem was found.
///
/// ```
/// use serde_json::json;
/// use toolwire::Provider;
/// use toolwire::provider::{ParseErrorKind, openai};
///
/// let err = openai::parse_calls(&json!({"tool_calls": [{"function": {"name": "f"}}]})).unwrap_err();
/// assert_eq!(err.provider(), Provider::OpenAi);
/// assert_eq!(err.kind(), ParseErrorKind::MissingField);
/// assert_eq!(err.path(), "/tool_calls/0/id");
/// assert_eq!(err.to_string(), "invalid OpenAI response: /tool_calls/0/id: missing");
/// ```
#[derive(Debug, Clone)]
pub struct ParseError {
    inner: Box<Inner>,
}

#[derive(Debug, Clone)]
struct Inner {
    provider: Provider,
    kind: ParseErrorKind,
    path: String,
    problem: String,
    source: Option<Arc<serde_json::Error>>,
}

impl ParseError {
    pub(super) fn new(
        provider: Provider,
        kind: ParseErrorKind,
        path: impl Into<String>,
        problem: impl Into<String>,
    ) -> Self {
        let (path, problem) = (path.into(), problem.into());
        Self { inner: Box::new(Inner { provider, kind, path, problem, source: None }) }
    }

    /// The same error, caused by `source`.
    #[expect(dead_code, reason = "no parser keeps a serde_json error yet")]
    pub(super) fn with_source(mut self, source: serde_json::Error) -> Self {
        self.inner.source = Some(Arc::new(source));
        self
    }

    /// The wire format whose reply could not be read.
    pub fn provider(&self) -> Provider {
        self.inner.provider
    }

    /// What kind of problem this is.
    pub fn kind(&self) -> ParseErrorKind {
        self.inner.kind
    }

    /// Where the problem is, as a JSON pointer (empty for the root); see the type's docs for
    /// what it is relative to.
    pub fn path(&self) -> &str {
        &self.inner.path
    }

    /// Whether a field every reply needs is absent.
    pub fn is_missing_field(&self) -> bool {
        self.kind() == ParseErrorKind::MissingField
    }
}

impl PartialEq for ParseError {
    fn eq(&self, other: &Self) -> bool {
        let (a, b) = (&self.inner, &other.inner);
        (a.provider, a.kind, &a.path, &a.problem) == (b.provider, b.kind, &b.path, &b.problem)
    }
}

impl Eq for ParseError {}

impl fmt::Display for ParseError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let Inner { provider, path, problem, .. } = &*self.inner;
        let at = if path.is_empty() { "(root)" } else { path };
        write!(f, "invalid {} response: {at}: {problem}", provider.label())
    }
}

impl std::error::Error for ParseError {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        self.inner.source.as_deref().map(|e| e as &(dyn std::error::Error + 'static))
    }
}
