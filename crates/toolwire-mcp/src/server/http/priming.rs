//! The SSE priming event, kept from clients of revisions before 2025-11-25.
//!
//! From 2025-11-25 on, a server may open an SSE stream with an event that has an id and no
//! data, so that a client can resume the stream from it. rmcp sends it on every stream,
//! whatever revision was negotiated; a client of an earlier revision reads every event's
//! data as JSON-RPC, and an empty one fails to parse (the TypeScript SDK that Gemini CLI uses
//! throws "Unexpected end of JSON input" and drops the connection). The official servers send
//! it only from 2025-11-25 on, and so does toolwire: the first event of a stream, when it has
//! no data, is taken out for a client of an earlier revision.

use std::pin::Pin;
use std::task::{Context, Poll, ready};

use axum::body::Bytes;
use http_body::{Body, Frame};

use crate::Revision;

/// The most of a stream's start that is held while looking for the end of its first event.
const HEAD_LIMIT: usize = 4096;

/// Whether a client of `revision` (the `MCP-Protocol-Version` it sent, or the one its
/// `initialize` asked for; `None` when it said none) reads a priming event.
pub(crate) fn reads_priming(revision: Option<&str>) -> bool {
    // A date toolwire does not know yet is a later revision's.
    revision.is_some_and(|text| {
        Revision::of(text).map_or(text > Revision::LATEST.as_str(), Revision::reads_priming)
    })
}

pin_project_lite::pin_project! {
    /// An SSE body without its first event when that event has no data.
    pub(crate) struct WithoutPriming<B> {
        #[pin]
        inner: B,
        // The stream's start, until its first event is complete; `None` after.
        head: Option<Vec<u8>>,
        // A frame read while the head was held, to give after it.
        queued: Option<Frame<Bytes>>,
    }
}

impl<B> WithoutPriming<B> {
    /// `inner` without a priming event.
    pub(crate) fn new(inner: B) -> Self {
        Self { inner, head: Some(Vec::new()), queued: None }
    }
}

impl<B: Body<Data = Bytes>> Body for WithoutPriming<B> {
    type Data = Bytes;
    type Error = B::Error;

    fn poll_frame(
        self: Pin<&mut Self>,
        cx: &mut Context<'_>,
    ) -> Poll<Option<Result<Frame<Bytes>, B::Error>>> {
        let mut this = self.project();
        if let Some(frame) = this.queued.take() {
            return Poll::Ready(Some(Ok(frame)));
        }
        let Some(head) = this.head.as_mut() else { return this.inner.poll_frame(cx) };
        loop {
            let frame = match ready!(this.inner.as_mut().poll_frame(cx)) {
                Some(Ok(frame)) => frame,
                Some(Err(error)) => return Poll::Ready(Some(Err(error))),
                None => return Poll::Ready(this.head.take().filter(|h| !h.is_empty()).map(data)),
            };
            match frame.into_data() {
                Ok(bytes) => head.extend_from_slice(&bytes),
                Err(other) => {
                    *this.queued = Some(other);
                    return Poll::Ready(this.head.take().map(data));
                }
            }
            if let Some(end) = first_event_end(head) {
                let keep = if is_priming(&head[..end]) {
                    head.split_off(end)
                } else {
                    std::mem::take(head)
                };
                *this.head = None;
                return Poll::Ready(Some(Ok(Frame::data(Bytes::from(keep)))));
            }
            if head.len() > HEAD_LIMIT {
                return Poll::Ready(this.head.take().map(data));
            }
        }
    }

    fn is_end_stream(&self) -> bool {
        self.head.is_none() && self.queued.is_none() && self.inner.is_end_stream()
    }
}

/// `bytes` as a data frame.
fn data<E>(bytes: Vec<u8>) -> Result<Frame<Bytes>, E> {
    Ok(Frame::data(Bytes::from(bytes)))
}

/// Where the first event of `head` ends (after its blank line), if it is complete.
fn first_event_end(head: &[u8]) -> Option<usize> {
    let lf = head.windows(2).position(|w| w == b"\n\n").map(|at| at + 2);
    let crlf = head.windows(4).position(|w| w == b"\r\n\r\n").map(|at| at + 4);
    match (lf, crlf) {
        (Some(a), Some(b)) => Some(a.min(b)),
        (a, b) => a.or(b),
    }
}

/// Whether `event` carries no data: every `data:` line of it is empty, or it has none.
fn is_priming(event: &[u8]) -> bool {
    let text = String::from_utf8_lossy(event);
    text.lines().filter_map(|line| line.strip_prefix("data:")).all(|value| value.trim().is_empty())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_a_first_event_without_data_is_priming() {
        let primed = b"id: 0\nretry: 3000\ndata: \n\ndata: {\"jsonrpc\":\"2.0\"}\n\n";
        let end = first_event_end(primed);
        assert!(end.is_some_and(|end| is_priming(&primed[..end])), "{end:?}");
        assert!(!is_priming(b"data: {\"a\":1}\n\n"));
        assert_eq!(first_event_end(b"data: x\r\n\r\nmore"), Some(11));
        assert!(reads_priming(Some("2025-11-25")) && reads_priming(Some("2026-07-28")));
        assert!(!reads_priming(Some("2025-06-18")) && !reads_priming(None));
    }
}
