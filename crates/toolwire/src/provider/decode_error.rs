//! The error of a model's reply or stream that cannot be read as a turn.

use std::fmt;
use std::sync::Arc;

use super::parse_error::ParseError;

/// What kind of problem a [`DecodeError`] reports. New kinds may be added.
#[non_exhaustive]
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum DecodeErrorKind {
    /// The reply, or an event of the stream, is not what the provider sends: not JSON, or
    /// without a part every reply has.
    InvalidReply,
    /// The provider put an error in the reply or the stream.
    Provider,
    /// The stream ended before the provider's end-of-reply event.
    Cut,
}

/// A reply or stream that cannot be read as a model's turn: what kind of problem, and a
/// message naming the API and where.
///
/// ```
/// use toolwire::Provider;
/// use toolwire::provider::DecodeErrorKind;
///
/// let mut decoder = Provider::Anthropic.model_api().unwrap().decoder();
/// decoder.push(r#"{"type": "message_start", "message": {"content": []}}"#).unwrap();
/// let cut = decoder.end().unwrap_err();
/// assert_eq!(cut.kind(), DecodeErrorKind::Cut);
/// assert_eq!(cut.to_string(), "Anthropic Messages stream: the body ended before the reply was complete");
/// ```
#[derive(Debug, Clone)]
pub struct DecodeError {
    kind: DecodeErrorKind,
    message: String,
    source: Option<Arc<dyn std::error::Error + Send + Sync>>,
}

impl DecodeError {
    /// An error of `kind` saying `message`.
    pub(super) fn new(kind: DecodeErrorKind, message: impl Into<String>) -> Self {
        Self { kind, message: message.into(), source: None }
    }

    /// An [`InvalidReply`](DecodeErrorKind::InvalidReply) error.
    pub(super) fn invalid(message: impl Into<String>) -> Self {
        Self::new(DecodeErrorKind::InvalidReply, message)
    }

    /// A reply the call parser rejected.
    pub(super) fn unparsed(error: ParseError) -> Self {
        Self::invalid(error.to_string()).caused_by(error)
    }

    /// The same error, caused by `source`.
    pub(super) fn caused_by(
        mut self,
        source: impl std::error::Error + Send + Sync + 'static,
    ) -> Self {
        self.source = Some(Arc::new(source));
        self
    }

    /// What kind of problem this is.
    pub fn kind(&self) -> DecodeErrorKind {
        self.kind
    }

    /// Whether the stream ended before the reply was complete.
    pub fn is_cut(&self) -> bool {
        self.kind == DecodeErrorKind::Cut
    }
}

impl fmt::Display for DecodeError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.message)
    }
}

impl std::error::Error for DecodeError {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        self.source.as_deref().map(|e| e as &(dyn std::error::Error + 'static))
    }
}
