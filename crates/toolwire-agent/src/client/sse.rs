//! Server-sent events from a response body, one at a time, under an idle time limit and an
//! abort signal.

use std::pin::Pin;
use std::time::Duration;

use futures_util::{Stream, StreamExt};
use sse_stream::{Sse, SseStream};
use toolwire::AbortSignal;

use crate::{Error, ErrorKind};

type Inner = Pin<Box<dyn Stream<Item = Result<Sse, sse_stream::Error>> + Send>>;

/// The events of one streamed reply.
pub(super) struct Events {
    inner: Inner,
    idle: Duration,
    what: String,
}

impl Events {
    /// The events of `response`; `idle` is the longest wait for the next one, and `what`
    /// names the request in messages.
    pub(super) fn new(response: reqwest::Response, idle: Duration, what: String) -> Self {
        let inner = Box::pin(SseStream::from_bytes_stream(response.bytes_stream()));
        Self { inner, idle, what }
    }

    /// The next event, or `None` when the body ended.
    ///
    /// # Cancel safety
    ///
    /// Dropping the future loses no event that was not yet returned.
    pub(super) async fn next(&mut self, signal: &AbortSignal) -> Result<Option<Sse>, Error> {
        let next = tokio::time::timeout(self.idle, self.inner.next());
        let item = tokio::select! {
            biased;
            () = signal.aborted() => return Err(aborted(signal, &self.what)),
            item = next => item,
        };
        let Ok(item) = item else {
            let message = format!("{}: the stream sent nothing for {:?}", self.what, self.idle);
            return Err(Error::new(ErrorKind::Timeout, message));
        };
        match item {
            None => Ok(None),
            Some(Ok(event)) => Ok(Some(event)),
            Some(Err(sse_stream::Error::Body(cause))) => {
                let message = format!("{}: the stream broke off: {cause}", self.what);
                Err(Error::new(ErrorKind::StreamCut, message))
            }
            Some(Err(cause)) => {
                let message = format!("{}: unreadable server-sent event: {cause}", self.what);
                Err(Error::new(ErrorKind::InvalidReply, message).with_source(cause))
            }
        }
    }
}

/// The error of a request that `signal` aborted.
pub(super) fn aborted(signal: &AbortSignal, what: &str) -> Error {
    let reason = signal.reason_or_default();
    Error::new(ErrorKind::Aborted, format!("{what}: aborted: {reason}"))
}
