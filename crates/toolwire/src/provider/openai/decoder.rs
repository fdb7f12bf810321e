//! OpenAI Chat Completions streamed: `chat.completion.chunk`s, ending in `data: [DONE]`, into
//! one turn.

use serde_json::Value;

use super::reply::{finish, usage};
use super::{CallAccumulator, TITLE, render_turn};
use crate::provider::decode::{Decode, Heard};
use crate::provider::decode_error::DecodeError;
use crate::provider::events::{cut, json, reported_error};
use crate::provider::turn::{Finish, ModelTurn, Usage};

/// The stream's state: the calls so far (the accumulator says which are complete).
#[derive(Default)]
pub(super) struct Decoder {
    calls: CallAccumulator,
    text: String,
    thinking: String,
    finish: Option<Finish>,
    done: bool,
    usage: Usage,
}

impl Decode for Decoder {
    fn push(&mut self, data: &str, heard: &mut Heard) -> Result<(), DecodeError> {
        if data.trim() == "[DONE]" {
            self.done = true;
            return Ok(());
        }
        let chunk = json(data, TITLE)?;
        reported_error(TITLE, &chunk)?;
        let delta = chunk.pointer("/choices/0/delta");
        let piece = |key: &str| delta.and_then(|d| d.get(key)).and_then(Value::as_str);
        if let Some(text) = piece("content") {
            self.text.push_str(text);
            heard.text(text);
        }
        // The reasoning OpenAI-compatible servers (DeepSeek, vLLM) stream beside the text.
        if let Some(thinking) = piece("reasoning_content") {
            self.thinking.push_str(thinking);
        }
        self.calls.push(&chunk);
        if let Some(reason) = chunk.pointer("/choices/0/finish_reason").and_then(Value::as_str) {
            self.finish = Some(finish(reason));
        }
        self.usage = self.usage.updated(usage(&chunk));
        heard.calls(self.calls.take_ready());
        Ok(())
    }

    fn end(&mut self, heard: &mut Heard) -> Result<(), DecodeError> {
        if self.finish.is_none() && !self.done {
            return Err(cut(TITLE));
        }
        // A stream that ends with `[DONE]` and no reason: its calls are complete now.
        heard.calls(self.calls.take_rest());
        Ok(())
    }

    fn finish(self: Box<Self>) -> ModelTurn {
        let ended = self.finish.is_some() || self.done;
        let accumulated = self.calls;
        // A cut stream's call still streaming has no arguments to trust: only complete ones.
        let calls = if ended { accumulated.finish() } else { accumulated.complete() };
        // A server that ends with `[DONE]` but names no reason finished normally.
        let finish =
            self.finish.unwrap_or(if calls.is_empty() { Finish::Stop } else { Finish::ToolCalls });
        let assistant = vec![render_turn(&self.text, &calls)];
        ModelTurn::new(assistant, calls)
            .with_text(self.text)
            .with_thinking(self.thinking)
            .with_finish(finish)
            .with_usage(self.usage)
    }
}
