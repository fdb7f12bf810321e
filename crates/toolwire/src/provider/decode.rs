//! [`TurnDecoder`]: a streamed reply, event by event, into one [`ModelTurn`].

use std::fmt;
use std::mem;

use super::Provider;
use super::decode_error::{DecodeError, DecodeErrorKind};
use super::turn::ModelTurn;
use crate::record::ToolCall;

/// What a provider's stream decoder does; each provider's folder has one.
pub(crate) trait Decode: Send {
    /// Takes in one event's data, telling `heard` about new text and completed calls.
    fn push(&mut self, data: &str, heard: &mut Heard) -> Result<(), DecodeError>;

    /// The body ended: an error unless the provider's end-of-reply came; otherwise every
    /// call not told yet is told to `heard`.
    fn end(&mut self, heard: &mut Heard) -> Result<(), DecodeError>;

    /// The turn as far as it came.
    fn finish(self: Box<Self>) -> ModelTurn;
}

/// What a stream told since the caller last asked: text, and calls whose arguments are
/// complete.
#[derive(Debug, Default)]
pub(crate) struct Heard {
    text: String,
    calls: Vec<ToolCall>,
}

impl Heard {
    /// A piece of the assistant's text.
    pub(crate) fn text(&mut self, delta: &str) {
        self.text.push_str(delta);
    }

    /// A call whose arguments are complete.
    pub(crate) fn call(&mut self, call: ToolCall) {
        self.calls.push(call);
    }

    /// Calls whose arguments are complete.
    pub(crate) fn calls(&mut self, calls: impl IntoIterator<Item = ToolCall>) {
        self.calls.extend(calls);
    }
}

/// Reads a streamed reply of one provider, one server-sent event's data at a time, into one
/// [`ModelTurn`]: the text, the thinking, the calls, the token counts and why the model
/// stopped, with the assistant messages to append to the conversation.
///
/// While the reply streams, [`take_text`](Self::take_text) gives the text that came since it
/// was last called, and [`take_ready`](Self::take_ready) the calls whose arguments are
/// complete (each once, in order), so a call can start while the model is still writing the
/// next. [`end`](Self::end) says the body is over; [`finish`](Self::finish) gives the turn.
///
/// ```
/// use toolwire::Provider;
///
/// let mut decoder = Provider::OpenAi.model_api().unwrap().decoder();
/// for data in [
///     r#"{"choices": [{"delta": {"content": "Let me look."}}]}"#,
///     r#"{"choices": [{"delta": {"tool_calls": [{"index": 0, "id": "call_1", "function": {"name": "get_weather", "arguments": "{\"city\":\"Oslo\"}"}}]}}]}"#,
///     r#"{"choices": [{"delta": {}, "finish_reason": "tool_calls"}]}"#,
///     "[DONE]",
/// ] {
///     decoder.push(data)?;
/// }
/// assert_eq!(decoder.take_text(), "Let me look.");
/// assert_eq!(decoder.take_ready()[0].call_id, "call_1");
/// decoder.end()?;
/// let turn = decoder.finish();
/// assert_eq!((turn.calls.len(), turn.text.as_str()), (1, "Let me look."));
/// # Ok::<(), toolwire::provider::DecodeError>(())
/// ```
pub struct TurnDecoder {
    provider: Provider,
    inner: Box<dyn Decode>,
    heard: Heard,
    /// The first error, which every later push repeats; nothing is read after it.
    failed: Option<DecodeError>,
    ended: bool,
}

impl TurnDecoder {
    pub(super) fn new(provider: Provider, inner: Box<dyn Decode>) -> Self {
        Self { provider, inner, heard: Heard::default(), failed: None, ended: false }
    }

    /// The provider whose stream this reads.
    pub fn provider(&self) -> Provider {
        self.provider
    }

    /// Takes in the data of one server-sent event.
    ///
    /// # Errors
    ///
    /// An [`InvalidReply`](DecodeErrorKind::InvalidReply) error for data that is not what the
    /// provider sends, and a [`Provider`](DecodeErrorKind::Provider) error for an error the
    /// provider sent in the stream. After an error, or after [`end`](Self::end), every push
    /// fails the same way and changes nothing.
    pub fn push(&mut self, data: &str) -> Result<(), DecodeError> {
        if let Some(error) = &self.failed {
            return Err(error.clone());
        }
        if self.ended {
            let message = "the stream has ended: no event can follow";
            return Err(DecodeError::new(DecodeErrorKind::InvalidReply, message));
        }
        let pushed = self.inner.push(data, &mut self.heard);
        if let Err(error) = &pushed {
            self.failed = Some(error.clone());
        }
        pushed
    }

    /// The text that came since the last call, joined; empty when none did.
    pub fn take_text(&mut self) -> String {
        mem::take(&mut self.heard.text)
    }

    /// The calls whose arguments became complete since the last call, in the turn's order.
    /// Each call is handed out once; [`finish`](Self::finish) still gives every call.
    pub fn take_ready(&mut self) -> Vec<ToolCall> {
        mem::take(&mut self.heard.calls)
    }

    /// Says the body is over. Every call the stream began is complete then: the next
    /// [`take_ready`](Self::take_ready) gives those not handed out yet.
    ///
    /// # Errors
    ///
    /// A [`Cut`](DecodeErrorKind::Cut) error when the provider's end-of-reply never came,
    /// or the error an earlier push returned.
    pub fn end(&mut self) -> Result<(), DecodeError> {
        if let Some(error) = &self.failed {
            return Err(error.clone());
        }
        if self.ended {
            return Ok(());
        }
        self.ended = true;
        let ended = self.inner.end(&mut self.heard);
        if let Err(error) = &ended {
            self.failed = Some(error.clone());
        }
        ended
    }

    /// The turn as far as the stream came: the whole turn after a successful
    /// [`end`](Self::end); for a stream that was cut or failed, its text and the calls that
    /// were complete, with assistant messages rebuilt from them.
    pub fn finish(self) -> ModelTurn {
        self.inner.finish()
    }
}

impl fmt::Debug for TurnDecoder {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("TurnDecoder")
            .field("provider", &self.provider)
            .field("ended", &self.ended)
            .field("failed", &self.failed)
            .finish_non_exhaustive()
    }
}
