//! [`Error`]: what went wrong talking to a model, or setting up or resuming a run.

use std::fmt;
use std::time::Duration;

/// What sort of failure an [`Error`] is.
#[non_exhaustive]
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum ErrorKind {
    /// The request could not be sent, or the connection failed while reading the reply.
    Transport,
    /// The server answered with an error status that is not retried, or kept answering with
    /// one until the retries ran out.
    Status,
    /// The server kept answering 429 (or said to wait longer than the retry policy allows).
    RateLimited,
    /// The server did not answer, or a stream stalled, within its time limit.
    Timeout,
    /// The caller's abort signal fired.
    Aborted,
    /// The reply was not the provider's format: not JSON, or missing what every reply has.
    InvalidReply,
    /// A stream ended before the provider's end-of-reply event.
    StreamCut,
    /// The provider reported an error inside a stream.
    Provider,
    /// A client or agent was configured wrongly: an unreadable base URL or model spec.
    Config,
    /// A saved run does not fit this agent, or has nothing to resume.
    Resume,
    /// A [`RunStore`](crate::RunStore) failed, or does not hold the run asked for.
    Store,
}

/// A failure of a model client, an agent's setup, or a resume.
///
/// Read what happened with [`kind`](Self::kind); the message names what failed and where,
/// and [`source`](std::error::Error::source) gives the cause when there is one.
pub struct Error {
    inner: Box<Inner>,
}

struct Inner {
    kind: ErrorKind,
    message: String,
    status: Option<u16>,
    retry_after: Option<Duration>,
    source: Option<Box<dyn std::error::Error + Send + Sync>>,
}

impl Error {
    /// An error of `kind` saying `message`.
    pub fn new(kind: ErrorKind, message: impl Into<String>) -> Self {
        let message = message.into();
        let inner = Inner { kind, message, status: None, retry_after: None, source: None };
        Self { inner: Box::new(inner) }
    }

    /// Adds the underlying cause.
    pub fn with_source(mut self, source: impl std::error::Error + Send + Sync + 'static) -> Self {
        self.inner.source = Some(Box::new(source));
        self
    }

    pub(crate) fn with_status(mut self, status: u16) -> Self {
        self.inner.status = Some(status);
        self
    }

    pub(crate) fn with_retry_after(mut self, wait: Option<Duration>) -> Self {
        self.inner.retry_after = wait;
        self
    }

    /// What sort of failure this is.
    pub fn kind(&self) -> ErrorKind {
        self.inner.kind
    }

    /// The HTTP status the server answered with, for [`Status`](ErrorKind::Status) and
    /// [`RateLimited`](ErrorKind::RateLimited) errors.
    pub fn status(&self) -> Option<u16> {
        self.inner.status
    }

    /// How long the server asked to wait before trying again, when it said.
    pub fn retry_after(&self) -> Option<Duration> {
        self.inner.retry_after
    }

    /// Whether the caller's signal aborted the work.
    pub fn is_aborted(&self) -> bool {
        self.inner.kind == ErrorKind::Aborted
    }

    /// Whether a time limit ran out.
    pub fn is_timeout(&self) -> bool {
        self.inner.kind == ErrorKind::Timeout
    }
}

impl fmt::Display for Error {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.inner.message)
    }
}

impl fmt::Debug for Error {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Error")
            .field("kind", &self.inner.kind)
            .field("message", &self.inner.message)
            .field("status", &self.inner.status)
            .field("source", &self.inner.source)
            .finish()
    }
}

impl std::error::Error for Error {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        self.inner.source.as_deref().map(|e| e as &(dyn std::error::Error + 'static))
    }
}
