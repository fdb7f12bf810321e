//! A request body that keeps a copy of what passes through it, so that the guard can word
//! rmcp's refusal of a body it read. The copy shares the body's buffers: it counts
//! references, and copies no bytes.

use std::pin::Pin;
use std::sync::{Arc, Mutex, PoisonError};
use std::task::{Context, Poll};

use axum::body::{Body, Bytes};
use http_body::{Frame, SizeHint};

/// What a [`Recorded`] body saw: its data frames, and whether it was read to its end.
#[derive(Debug, Default)]
pub(crate) struct Record {
    seen: Mutex<Seen>,
}

#[derive(Debug, Default)]
struct Seen {
    /// The first data frame; most bodies have no other, and then nothing is allocated here.
    first: Option<Bytes>,
    rest: Vec<Bytes>,
    ended: bool,
}

impl Record {
    /// The whole body, if it was read to its end; `None` if its reader stopped early.
    pub(crate) fn body(&self) -> Option<Vec<u8>> {
        let seen = self.seen.lock().unwrap_or_else(PoisonError::into_inner);
        if !seen.ended {
            return None;
        }
        let mut body = Vec::new();
        for frame in seen.first.iter().chain(&seen.rest) {
            body.extend_from_slice(frame);
        }
        Some(body)
    }

    fn keep(&self, data: &Bytes) {
        let mut seen = self.seen.lock().unwrap_or_else(PoisonError::into_inner);
        if seen.first.is_none() {
            seen.first = Some(data.clone());
        } else {
            seen.rest.push(data.clone());
        }
    }

    fn end(&self) {
        self.seen.lock().unwrap_or_else(PoisonError::into_inner).ended = true;
    }
}

/// `inner`, with each data frame noted in `record` as it is read.
pub(crate) struct Recorded {
    inner: Body,
    record: Arc<Record>,
}

impl Recorded {
    pub(crate) fn new(inner: Body, record: Arc<Record>) -> Self {
        Self { inner, record }
    }
}

impl http_body::Body for Recorded {
    type Data = Bytes;
    type Error = axum::Error;

    fn poll_frame(
        self: Pin<&mut Self>,
        cx: &mut Context<'_>,
    ) -> Poll<Option<Result<Frame<Bytes>, axum::Error>>> {
        let this = self.get_mut();
        let polled = Pin::new(&mut this.inner).poll_frame(cx);
        match &polled {
            Poll::Ready(Some(Ok(frame))) => {
                if let Some(data) = frame.data_ref() {
                    this.record.keep(data);
                }
            }
            Poll::Ready(None) => this.record.end(),
            _ => {}
        }
        polled
    }

    fn is_end_stream(&self) -> bool {
        self.inner.is_end_stream()
    }

    fn size_hint(&self) -> SizeHint {
        self.inner.size_hint()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use http_body::Body as _;

    /// Reads `body` frame by frame to its end.
    async fn drain(body: &mut Recorded) {
        while std::future::poll_fn(|cx| Pin::new(&mut *body).poll_frame(cx)).await.is_some() {}
    }

    #[tokio::test]
    async fn a_body_read_to_its_end_is_recorded_whole() {
        let record = Arc::new(Record::default());
        let mut body = Recorded::new(Body::from("{\"jsonrpc\": \"2.0\"}"), Arc::clone(&record));
        assert_eq!(record.body(), None, "nothing was read yet");
        drain(&mut body).await;
        assert_eq!(record.body().as_deref(), Some(&b"{\"jsonrpc\": \"2.0\"}"[..]));
    }

    #[test]
    fn frames_are_joined_in_order() {
        let record = Record::default();
        for frame in ["[{\"a\":", " 1},", " {}]"] {
            record.keep(&Bytes::from(frame));
        }
        assert_eq!(record.body(), None, "the end was not seen");
        record.end();
        assert_eq!(record.body().as_deref(), Some(&b"[{\"a\": 1}, {}]"[..]));
    }
}
