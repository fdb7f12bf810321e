//! Anthropic Messages streamed: the events from `message_start` to `message_stop`, block by
//! block, into one turn.

use std::collections::BTreeMap;

use serde_json::{Value, json};

use super::reply::{finish, usage};
use super::{CallAccumulator, TITLE};
use crate::provider::decode::{Decode, Heard};
use crate::provider::decode_error::DecodeError;
use crate::provider::events::{cut, json, provider_error};
use crate::provider::parse::object_arguments;
use crate::provider::turn::{Finish, ModelTurn, Usage};
use crate::record::ToolCall;

/// One content block as far as it has streamed.
struct Block {
    value: Value,
    /// The `input_json_delta` fragments of a block that is not the caller's tool call (a
    /// server tool's input), parsed at its end.
    partial: String,
    /// The accumulator of a `tool_use` block still streaming.
    call: Option<CallAccumulator>,
    /// The finished call of a `tool_use` block.
    done: Option<ToolCall>,
}

impl Block {
    /// Whether it is a `tool_use` block that never finished.
    fn unfinished_call(&self) -> bool {
        self.call.is_some()
    }

    /// Whether it is a `tool_use` block without a call to answer it.
    fn unanswerable(&self) -> bool {
        self.done.is_none() && self.value.get("type").and_then(Value::as_str) == Some("tool_use")
    }
}

/// The stream's state: the blocks by index, and how the message ended.
#[derive(Default)]
pub(super) struct Decoder {
    blocks: BTreeMap<u64, Block>,
    text: String,
    thinking: String,
    finish: Option<Finish>,
    stopped: bool,
    usage: Usage,
}

impl Decoder {
    fn start(&mut self, index: u64, event: &Value) -> Result<(), DecodeError> {
        let Some(value) = event.get("content_block").filter(|block| block.is_object()).cloned()
        else {
            let message = format!("{TITLE} stream: content block {index} starts without an object");
            return Err(DecodeError::invalid(message));
        };
        let call = (value.get("type").and_then(Value::as_str) == Some("tool_use")).then(|| {
            let mut call = CallAccumulator::default();
            call.push(event);
            call
        });
        self.blocks.insert(index, Block { value, partial: String::new(), call, done: None });
        Ok(())
    }

    fn delta(&mut self, index: u64, event: &Value, heard: &mut Heard) {
        let Some(block) = self.blocks.get_mut(&index) else { return };
        let delta = event.get("delta").unwrap_or(&Value::Null);
        let text = |key: &str| delta.get(key).and_then(Value::as_str).unwrap_or_default();
        match delta.get("type").and_then(Value::as_str) {
            Some("text_delta") => {
                append(&mut block.value, "text", text("text"));
                self.text.push_str(text("text"));
                heard.text(text("text"));
            }
            Some("thinking_delta") => {
                append(&mut block.value, "thinking", text("thinking"));
                self.thinking.push_str(text("thinking"));
            }
            Some("signature_delta") => block.value["signature"] = json!(text("signature")),
            Some("input_json_delta") => match &mut block.call {
                Some(call) => call.push(event),
                None => block.partial.push_str(text("partial_json")),
            },
            _ => {}
        }
    }

    /// Ends the block at `index`: a `tool_use` block's call is complete, and told to `heard`.
    fn stop(&mut self, index: u64, event: &Value, heard: &mut Heard) -> Result<(), DecodeError> {
        let Some(block) = self.blocks.get_mut(&index) else { return Ok(()) };
        if let Some(mut accumulator) = block.call.take() {
            accumulator.push(event);
            let call = accumulator.finish().map_err(DecodeError::unparsed)?.into_iter().next();
            if let Some(call) = call {
                block.value["input"] = object_arguments(&call);
                heard.call(call.clone());
                block.done = Some(call);
            }
        } else if !block.partial.is_empty() {
            block.value["input"] = serde_json::from_str(&block.partial).unwrap_or(json!({}));
        }
        Ok(())
    }
}

/// Appends `more` to the string at `value[key]`.
fn append(value: &mut Value, key: &str, more: &str) {
    let joined = format!("{}{more}", value.get(key).and_then(Value::as_str).unwrap_or_default());
    value[key] = Value::String(joined);
}

impl Decode for Decoder {
    fn push(&mut self, data: &str, heard: &mut Heard) -> Result<(), DecodeError> {
        // Nothing after the message's end counts: some gateways add an OpenAI-style
        // `data: [DONE]` to every stream.
        if self.stopped {
            return Ok(());
        }
        let event = json(data, TITLE)?;
        let index = event.get("index").and_then(Value::as_u64);
        match (event.get("type").and_then(Value::as_str), index) {
            (Some("content_block_start"), Some(index)) => self.start(index, &event)?,
            (Some("content_block_delta"), Some(index)) => self.delta(index, &event, heard),
            (Some("content_block_stop"), Some(index)) => self.stop(index, &event, heard)?,
            (Some("message_start"), _) => {
                self.usage = self.usage.updated(usage(&event, "/message"))
            }
            (Some("message_delta"), _) => {
                self.usage = self.usage.updated(usage(&event, ""));
                if let Some(reason) = event.pointer("/delta/stop_reason").and_then(Value::as_str) {
                    self.finish = Some(finish(reason));
                }
            }
            (Some("message_stop"), _) => self.stopped = true,
            (Some("error"), _) => {
                return Err(provider_error(TITLE, event.get("error").unwrap_or(&event)));
            }
            _ => {}
        }
        Ok(())
    }

    fn end(&mut self, heard: &mut Heard) -> Result<(), DecodeError> {
        if !self.stopped {
            return Err(cut(TITLE));
        }
        // A `tool_use` block the message ended without stopping is as complete as it gets.
        let open: Vec<u64> = self
            .blocks
            .iter()
            .filter(|(_, block)| block.unfinished_call())
            .map(|(index, _)| *index)
            .collect();
        for index in open {
            self.stop(index, &json!({"type": "content_block_stop", "index": index}), heard)?;
        }
        Ok(())
    }

    fn finish(self: Box<Self>) -> ModelTurn {
        let mut calls = Vec::new();
        let mut content = Vec::with_capacity(self.blocks.len());
        // A `tool_use` block that never became a call would go unanswered: it is left out.
        for block in self.blocks.into_values().filter(|block| !block.unanswerable()) {
            calls.extend(block.done);
            content.push(block.value);
        }
        let finish =
            self.finish.unwrap_or(if calls.is_empty() { Finish::Stop } else { Finish::ToolCalls });
        let assistant = vec![json!({"role": "assistant", "content": content})];
        ModelTurn::new(assistant, calls)
            .with_text(self.text)
            .with_thinking(self.thinking)
            .with_finish(finish)
            .with_usage(self.usage)
    }
}
