//! Gemini streamed (`:streamGenerateContent?alt=sse`): every event a partial response, into
//! one turn.

use serde_json::{Value, json};

use super::reply::{finish, is_thought, usage};
use super::{CallAccumulator, TITLE, render_call};
use crate::provider::decode::{Decode, Heard};
use crate::provider::decode_error::DecodeError;
use crate::provider::events::{cut, json, reported_error};
use crate::provider::turn::{Finish, ModelTurn, Usage};

/// A part of the model's content as streamed: a part kept as it came (text joined), or the
/// place of the `n`th call with the thought signature of its first part.
enum Part {
    Kept(Value),
    Call(usize, Option<Value>),
}

/// The stream's state.
#[derive(Default)]
pub(super) struct Decoder {
    calls: CallAccumulator,
    /// How many calls have begun.
    count: usize,
    parts: Vec<Part>,
    text: String,
    thinking: String,
    finish: Option<Finish>,
    usage: Usage,
}

impl Decoder {
    fn keep(&mut self, part: &Value, heard: &mut Heard) {
        let text = part.get("text").and_then(Value::as_str);
        if let (Some(text), true) = (text, is_thought(part)) {
            self.thinking.push_str(text);
        }
        let plain = part.get("thought").is_none() && part.get("thoughtSignature").is_none();
        if let (Some(text), true) = (text, plain) {
            self.text.push_str(text);
            heard.text(text);
            if let Some(Part::Kept(last)) = self.parts.last_mut()
                && last.as_object().is_some_and(|m| m.len() == 1)
                && let Some(Value::String(joined)) = last.get_mut("text")
            {
                joined.push_str(text);
                return;
            }
        }
        self.parts.push(Part::Kept(part.clone()));
    }
}

impl Decode for Decoder {
    fn push(&mut self, data: &str, heard: &mut Heard) -> Result<(), DecodeError> {
        let chunk = json(data, TITLE)?;
        reported_error(TITLE, &chunk)?;
        self.usage = self.usage.updated(usage(&chunk));
        self.calls.push(&chunk);
        let parts = chunk.pointer("/candidates/0/content/parts").and_then(Value::as_array);
        for part in parts.into_iter().flatten() {
            match part.get("functionCall") {
                Some(_) if self.calls.len() > self.count => {
                    let signature = part.get("thoughtSignature").cloned();
                    self.parts.push(Part::Call(self.count, signature));
                    self.count += 1;
                }
                Some(_) => {}
                None => self.keep(part, heard),
            }
        }
        heard.calls(self.calls.take_ready());
        if let Some(reason) = chunk.pointer("/candidates/0/finishReason").and_then(Value::as_str) {
            self.finish = Some(finish(reason));
        }
        Ok(())
    }

    fn end(&mut self, heard: &mut Heard) -> Result<(), DecodeError> {
        if self.finish.is_none() {
            return Err(cut(TITLE));
        }
        // The last call, if it still said more would follow: it fails, saying it was cut.
        self.calls.close();
        heard.calls(self.calls.take_ready());
        Ok(())
    }

    fn finish(self: Box<Self>) -> ModelTurn {
        let calls = match self.finish {
            Some(_) => self.calls.finish(),
            None => self.calls.complete(),
        };
        let parts: Vec<Value> = self
            .parts
            .into_iter()
            .filter_map(|part| match part {
                Part::Kept(value) => Some(value),
                Part::Call(n, signature) => {
                    let mut value = json!({"functionCall": render_call(calls.get(n)?)});
                    if let Some(signature) = signature {
                        value["thoughtSignature"] = signature;
                    }
                    Some(value)
                }
            })
            .collect();
        let finish = self.finish.unwrap_or(Finish::Stop).given_calls(&calls);
        let assistant = vec![json!({"role": "model", "parts": parts})];
        ModelTurn::new(assistant, calls)
            .with_text(self.text)
            .with_thinking(self.thinking)
            .with_finish(finish)
            .with_usage(self.usage)
    }
}
