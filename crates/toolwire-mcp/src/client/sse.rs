//! Server-sent events read from bytes as they arrive, one event at a time, with a cap on
//! the bytes an event may take (the WHATWG event stream format: `data`, `id` and `retry`
//! fields, lines ended by CR, LF or CRLF, an event ended by a blank line).

/// One dispatched event: its `data` lines joined by `\n`.
#[derive(Debug, PartialEq, Eq)]
pub(crate) struct Event {
    pub(crate) data: String,
}

/// Why the stream cannot be read on.
#[derive(Debug, PartialEq, Eq)]
pub(crate) enum SseError {
    /// An event grew past the cap before it ended.
    TooLarge,
    /// An event's bytes are not UTF-8.
    NotUtf8,
}

/// A parser fed with chunks of the body; it keeps the last event id and the reconnection
/// delay the server asked for.
#[derive(Debug)]
pub(crate) struct Parser {
    /// Bytes not yet split into lines.
    pending: Vec<u8>,
    /// The `data` of the event being read.
    data: String,
    /// Whether the event being read has a `data` field.
    has_data: bool,
    /// A CR ended the last line, so an LF right after it ends nothing.
    after_cr: bool,
    limit: usize,
    /// The `id` of the last event, as the spec keeps it for reconnection.
    pub(crate) last_id: Option<String>,
    /// The `retry` the server last sent, in milliseconds.
    pub(crate) retry_ms: Option<u64>,
}

impl Parser {
    /// A parser whose events may take at most `limit` bytes.
    pub(crate) fn new(limit: usize) -> Self {
        Self {
            pending: Vec::new(),
            data: String::new(),
            has_data: false,
            after_cr: false,
            limit,
            last_id: None,
            retry_ms: None,
        }
    }

    /// Adds `chunk` and appends the events it completes to `events`.
    ///
    /// # Errors
    ///
    /// [`SseError::TooLarge`] once an event holds more than the limit, [`SseError::NotUtf8`]
    /// for a line that is not UTF-8; the parser must not be fed again after either.
    pub(crate) fn feed(&mut self, chunk: &[u8], events: &mut Vec<Event>) -> Result<(), SseError> {
        let mut rest = chunk;
        if self.after_cr && rest.first() == Some(&b'\n') {
            rest = &rest[1..];
        }
        self.after_cr = false;
        while let Some(end) = rest.iter().position(|b| *b == b'\n' || *b == b'\r') {
            let line = if self.pending.is_empty() {
                self.line(&rest[..end], events)
            } else {
                let mut line = std::mem::take(&mut self.pending);
                line.extend_from_slice(&rest[..end]);
                self.line(&line, events)
            };
            line?;
            let crlf = rest[end] == b'\r' && rest.get(end + 1) == Some(&b'\n');
            self.after_cr = rest[end] == b'\r' && end + 1 == rest.len();
            rest = &rest[end + if crlf { 2 } else { 1 }..];
        }
        if self.pending.len() + rest.len() + self.data.len() > self.limit {
            return Err(SseError::TooLarge);
        }
        self.pending.extend_from_slice(rest);
        Ok(())
    }

    /// Handles one line without its terminator.
    fn line(&mut self, line: &[u8], events: &mut Vec<Event>) -> Result<(), SseError> {
        if line.is_empty() {
            if self.has_data {
                self.has_data = false;
                events.push(Event { data: std::mem::take(&mut self.data) });
            }
            return Ok(());
        }
        let line = std::str::from_utf8(line).map_err(|_| SseError::NotUtf8)?;
        let (field, value) = match line.split_once(':') {
            Some((field, value)) => (field, value.strip_prefix(' ').unwrap_or(value)),
            None => (line, ""),
        };
        match field {
            "data" => {
                if self.data.len() + value.len() + 1 > self.limit {
                    return Err(SseError::TooLarge);
                }
                if self.has_data {
                    self.data.push('\n');
                }
                self.data.push_str(value);
                self.has_data = true;
            }
            "id" if !value.contains('\0') => self.last_id = Some(value.to_owned()),
            "retry" => {
                if let Ok(ms) = value.parse() {
                    self.retry_ms = Some(ms);
                }
            }
            // `event` names (MCP sends only `message`), comments and unknown fields.
            _ => {}
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn events(chunks: &[&[u8]], limit: usize) -> (Vec<String>, Result<(), SseError>, Parser) {
        let mut parser = Parser::new(limit);
        let mut out = Vec::new();
        for chunk in chunks {
            if let Err(error) = parser.feed(chunk, &mut out) {
                return (out.into_iter().map(|e| e.data).collect(), Err(error), parser);
            }
        }
        (out.into_iter().map(|e| e.data).collect(), Ok(()), parser)
    }

    #[test]
    fn events_split_anywhere_and_every_line_ending_read_the_same() {
        let whole: &[u8] =
            b"id: 7\nretry: 500\ndata: {\"a\":\n\ndata: one\r\ndata: two\r\n\r\n: note\rdata:x\r\r";
        let (all, result, parser) = events(&[whole], 1024);
        assert_eq!(result, Ok(()));
        assert_eq!(all, ["{\"a\":", "one\ntwo", "x"]);
        assert_eq!(parser.last_id.as_deref(), Some("7"));
        assert_eq!(parser.retry_ms, Some(500));
        for split in 0..whole.len() {
            let (parts, result, _) = events(&[&whole[..split], &whole[split..]], 1024);
            assert_eq!(result, Ok(()));
            assert_eq!(parts, all, "split at {split}");
        }
    }

    #[test]
    fn a_priming_event_dispatches_empty_data_an_id_alone_dispatches_nothing_and_both_keep_the_id() {
        let (all, result, parser) = events(&[b"id: p-1\ndata\n\n", b"id: p-2\n\n"], 64);
        assert_eq!(result, Ok(()));
        assert_eq!(all, [""]);
        assert_eq!(parser.last_id.as_deref(), Some("p-2"));
    }

    #[test]
    fn an_event_past_the_limit_is_refused_whether_or_not_its_line_has_ended() {
        let (_, result, _) = events(&[b"data: ", &[b'a'; 100]], 64);
        assert_eq!(result, Err(SseError::TooLarge));
        let (_, result, _) = events(&[&b"data: 0123456789\n"[..]; 10], 64);
        assert_eq!(result, Err(SseError::TooLarge));
        let (all, result, _) = events(&[&b"data: 0123456789\n\n"[..]; 10], 64);
        assert_eq!((all.len(), result), (10, Ok(())));
    }

    #[test]
    fn a_line_that_is_not_utf8_is_an_error() {
        let (_, result, _) = events(&[b"data: \xff\xfe\n\n"], 64);
        assert_eq!(result, Err(SseError::NotUtf8));
    }
}
