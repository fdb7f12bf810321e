//! The guard on a stdio server's output: a message longer than the connection takes is
//! answered at once, in place of the server, with an error that names its size and the
//! limit, instead of being dropped while its call waits for an idle timeout.
//!
//! rmcp's line reader drops a line longer than its `max_line_length` and goes on. The guard
//! sits under it, sees the same bytes, and counts each line as rmcp does (its length with its
//! newline). While a line passes, it finds the message's top-level `"id"`, wherever it is;
//! after the newline of a line over the limit, it adds a line of its own: a JSON-RPC error for
//! that id, which `TOO_LARGE_CODE` marks.

use std::io;
use std::pin::Pin;
use std::task::{Context, Poll};

use tokio::io::{AsyncRead, ReadBuf};

use super::result::TOO_LARGE_CODE;

/// An [`AsyncRead`] that answers each line over `limit` bytes with an error for its id.
pub(crate) struct Guard<R> {
    inner: R,
    limit: usize,
    /// The length of the line under way, with its newline.
    line: usize,
    scan: IdScan,
    /// A line of the guard's own, and how much of it has been read.
    pending: Option<(Vec<u8>, usize)>,
}

impl<R> Guard<R> {
    pub(crate) fn new(inner: R, limit: usize) -> Self {
        Self { inner, limit, line: 0, scan: IdScan::default(), pending: None }
    }

    /// Takes in `bytes`, which went on to the reader: counts lines, and queues the error line
    /// for a line that ended over the limit.
    fn observe(&mut self, bytes: &[u8]) {
        let mut rest = bytes;
        while !rest.is_empty() {
            let newline = rest.iter().position(|&b| b == b'\n');
            let take = newline.map_or(rest.len(), |i| i + 1);
            let (chunk, tail) = rest.split_at(take);
            self.line = self.line.saturating_add(chunk.len());
            self.scan.feed(chunk);
            if newline.is_some() {
                if self.line > self.limit {
                    self.refuse();
                }
                self.line = 0;
                self.scan = IdScan::default();
            }
            rest = tail;
        }
    }

    /// Queues the error line for the line that just ended over the limit; a message without
    /// an id (a notification) is only logged, as nothing waits for it.
    fn refuse(&mut self) {
        let size = self.line.saturating_sub(1);
        let Some(id) = self.scan.id() else {
            tracing::warn!(
                size,
                limit = self.limit,
                "an mcp server sent a notification too large to read; it was dropped"
            );
            return;
        };
        let message = format!(
            "the server's answer is {size} bytes, more than the {} bytes this connection takes",
            self.limit
        );
        let error = serde_json::json!({
            "jsonrpc": "2.0",
            "id": id,
            "error": {"code": TOO_LARGE_CODE, "message": message,
                "data": {"size": size, "limit": self.limit}},
        });
        let mut line = error.to_string().into_bytes();
        line.push(b'\n');
        let queued = match self.pending.take() {
            Some((mut before, read)) => {
                before.drain(..read);
                before.extend_from_slice(&line);
                before
            }
            None => line,
        };
        self.pending = Some((queued, 0));
    }
}

impl<R: AsyncRead + Unpin> AsyncRead for Guard<R> {
    fn poll_read(
        self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        buf: &mut ReadBuf<'_>,
    ) -> Poll<io::Result<()>> {
        let this = self.get_mut();
        if let Some((line, read)) = &mut this.pending {
            let n = (line.len() - *read).min(buf.remaining());
            buf.put_slice(&line[*read..*read + n]);
            *read += n;
            if *read == line.len() {
                this.pending = None;
            }
            return Poll::Ready(Ok(()));
        }
        let before = buf.filled().len();
        let polled = Pin::new(&mut this.inner).poll_read(cx, buf);
        if let Poll::Ready(Ok(())) = polled {
            this.observe(&buf.filled()[before..]);
        }
        polled
    }
}

/// Finds a JSON object's top-level `"id"` value (a number or a string) in a stream of its
/// bytes, wherever the key is: rmcp and Python servers write it first, others last.
#[derive(Default)]
struct IdScan {
    depth: u32,
    in_string: bool,
    escaped: bool,
    /// The top-level key being read, or the last one read.
    key: Vec<u8>,
    reading_key: bool,
    /// After `"id":` at the top level: the value's bytes so far.
    value: Option<Vec<u8>>,
    found: Option<Vec<u8>>,
    /// Whether the next string at depth 1 is a key.
    expect_key: bool,
}

/// The longest id the scan keeps.
const MAX_ID: usize = 256;

impl IdScan {
    fn feed(&mut self, bytes: &[u8]) {
        if self.found.is_some() {
            return;
        }
        for &byte in bytes {
            if let Some(value) = &mut self.value {
                let ends = !self.in_string && matches!(byte, b',' | b'}') && !value.is_empty();
                if ends {
                    self.found = self.value.take();
                    return;
                }
                if value.len() < MAX_ID && !(value.is_empty() && byte.is_ascii_whitespace()) {
                    value.push(byte);
                }
            }
            self.step(byte);
            if self.found.is_some() {
                return;
            }
        }
    }

    /// Moves the lexer on by one byte.
    fn step(&mut self, byte: u8) {
        if self.in_string {
            let closes = !self.escaped && byte == b'"';
            self.escaped = !self.escaped && byte == b'\\';
            if closes {
                self.in_string = false;
                self.reading_key = false;
            } else if self.reading_key && self.key.len() < 8 {
                // An escape stays in the key, so `"i\u0064"` is not `id`.
                self.key.push(byte);
            }
            return;
        }
        match byte {
            b'"' => {
                self.in_string = true;
                if self.depth == 1 && self.expect_key {
                    self.reading_key = true;
                    self.expect_key = false;
                    self.key.clear();
                }
            }
            b'{' | b'[' => {
                self.depth += 1;
                if self.depth == 1 {
                    self.expect_key = true;
                }
            }
            b'}' | b']' => self.depth = self.depth.saturating_sub(1),
            b',' if self.depth == 1 => self.expect_key = true,
            b':' if self.depth == 1 && self.key == b"id" && self.value.is_none() => {
                self.value = Some(Vec::new());
            }
            _ => {}
        }
    }

    /// The id as JSON, when it was found and reads as a number or a string.
    fn id(&self) -> Option<serde_json::Value> {
        let raw = self.found.as_ref().or(self.value.as_ref())?;
        let value: serde_json::Value = serde_json::from_slice(raw.trim_ascii()).ok()?;
        (value.is_number() || value.is_string()).then_some(value)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn id_of(message: &str) -> Option<serde_json::Value> {
        let mut scan = IdScan::default();
        for chunk in message.as_bytes().chunks(3) {
            scan.feed(chunk);
        }
        scan.id()
    }

    #[test]
    fn the_top_level_id_is_found_first_or_last_and_never_a_nested_one() {
        assert_eq!(id_of(r#"{"jsonrpc":"2.0","id":7,"result":{"id":9}}"#), Some(7.into()));
        assert_eq!(
            id_of(r#"{"result":{"id":9,"x":"\"id\":3"},"jsonrpc":"2.0","id":"a-1"}"#),
            Some("a-1".into())
        );
        assert_eq!(id_of(r#"{"method":"notify","params":{"id":1}}"#), None);
        assert_eq!(id_of(r#"{ "id" : 12 }"#), Some(12.into()));
    }
}
