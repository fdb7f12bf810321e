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
    /// Bytes to hand out before reading on: an error line of the guard's own, and after it
    /// what followed the oversized line in the same read.
    out: Vec<u8>,
    out_read: usize,
    /// Bytes read from the server but not yet looked at.
    unseen: Vec<u8>,
}

impl<R> Guard<R> {
    pub(crate) fn new(inner: R, limit: usize) -> Self {
        Self {
            inner,
            limit,
            line: 0,
            scan: IdScan::default(),
            out: Vec::new(),
            out_read: 0,
            unseen: Vec::new(),
        }
    }

    /// Looks at `bytes`, which go on to the reader, up to the end of the first line over the
    /// limit: how many bytes that is (all of them when no such line ends here), and the error
    /// line that answers it, which must come next.
    fn observe(&mut self, bytes: &[u8]) -> (usize, Option<Vec<u8>>) {
        let mut seen = 0;
        while seen < bytes.len() {
            let rest = &bytes[seen..];
            let newline = rest.iter().position(|&b| b == b'\n');
            let take = newline.map_or(rest.len(), |i| i + 1);
            self.line = self.line.saturating_add(take);
            self.scan.feed(&rest[..take]);
            seen += take;
            if newline.is_some() {
                let over = self.line > self.limit;
                let answer = if over { self.refusal() } else { None };
                self.line = 0;
                self.scan = IdScan::default();
                if answer.is_some() {
                    return (seen, answer);
                }
            }
        }
        (seen, None)
    }

    /// The error line for the line that just ended over the limit; a message without an id
    /// (a notification) is only logged, as nothing waits for it.
    fn refusal(&self) -> Option<Vec<u8>> {
        let size = self.line.saturating_sub(1);
        let Some(id) = self.scan.id() else {
            tracing::warn!(
                size,
                limit = self.limit,
                "an mcp server sent a notification too large to read; it was dropped"
            );
            return None;
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
        Some(line)
    }

    /// Queues `answer`, then `after` (bytes not yet looked at), to be handed out next.
    fn queue(&mut self, answer: Vec<u8>, after: &[u8]) {
        self.out = answer;
        self.out_read = 0;
        let mut unseen = after.to_vec();
        unseen.extend_from_slice(&self.unseen);
        self.unseen = unseen;
    }
}

impl<R: AsyncRead + Unpin> AsyncRead for Guard<R> {
    fn poll_read(
        self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        buf: &mut ReadBuf<'_>,
    ) -> Poll<io::Result<()>> {
        let this = self.get_mut();
        loop {
            if this.out_read < this.out.len() {
                let n = (this.out.len() - this.out_read).min(buf.remaining());
                buf.put_slice(&this.out[this.out_read..this.out_read + n]);
                this.out_read += n;
                return Poll::Ready(Ok(()));
            }
            if this.unseen.is_empty() {
                break;
            }
            // What followed an oversized line: looked at now, as if just read.
            let unseen = std::mem::take(&mut this.unseen);
            let (cut, answer) = this.observe(&unseen);
            this.out = unseen[..cut].to_vec();
            this.out_read = 0;
            if let Some(answer) = answer {
                this.out.extend_from_slice(&answer);
                this.unseen = unseen[cut..].to_vec();
            }
        }
        let before = buf.filled().len();
        let polled = Pin::new(&mut this.inner).poll_read(cx, buf);
        if let Poll::Ready(Ok(())) = polled {
            let end = buf.filled().len();
            let (cut, answer) = this.observe(&buf.filled()[before..]);
            if let Some(answer) = answer {
                // The bytes after the oversized line go out after its answer.
                let after = buf.filled()[before + cut..end].to_vec();
                buf.set_filled(before + cut);
                this.queue(answer, &after);
            }
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

    /// Reads everything `guard` hands out, a few bytes at a time.
    async fn drain(mut guard: Guard<&[u8]>) -> String {
        use tokio::io::AsyncReadExt as _;
        let mut out = Vec::new();
        let mut chunk = [0u8; 7];
        loop {
            let n = guard.read(&mut chunk).await.unwrap_or(0);
            if n == 0 {
                break;
            }
            out.extend_from_slice(&chunk[..n]);
        }
        String::from_utf8_lossy(&out).into_owned()
    }

    #[tokio::test]
    async fn regression_the_answer_to_an_oversized_line_goes_out_before_the_next_message() {
        let big =
            format!(r#"{{"jsonrpc":"2.0","id":4,"result":{{"text":"{}"}}}}"#, "x".repeat(100));
        let input = format!("{{\"id\":1}}\n{big}\n{{\"id\":2}}\n{big}\n");
        let out = drain(Guard::new(input.as_bytes(), 64)).await;
        let lines: Vec<&str> = out.lines().collect();
        assert_eq!(lines.len(), 6, "{out}");
        assert_eq!(lines[0], r#"{"id":1}"#);
        assert_eq!(lines[1], big);
        assert!(lines[2].contains(r#""id":4"#) && lines[2].contains("-32099"), "{}", lines[2]);
        assert_eq!(lines[3], r#"{"id":2}"#);
        assert_eq!(lines[4], big);
        assert!(lines[5].contains(r#""id":4"#), "{}", lines[5]);
    }

    #[tokio::test]
    async fn lines_within_the_limit_pass_unchanged() {
        let input = "{\"id\":1}\n{\"id\":2}\n";
        assert_eq!(drain(Guard::new(input.as_bytes(), 64)).await, input);
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
