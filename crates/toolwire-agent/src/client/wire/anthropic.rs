//! Anthropic Messages over HTTP: `POST {base}/messages`, and its event stream from
//! `message_start` to `message_stop`.

use std::collections::BTreeMap;

use serde_json::{Value, json};
use toolwire::ToolCall;
use toolwire::provider::anthropic::{self, CallAccumulator};

use super::{Decode, Target, cut, finish_of, invalid, provider_error, unparsed, usage};
use crate::Error;
use crate::client::{Finish, ModelRequest, ModelTurn, TurnSink, Usage};

const NAME: &str = "Anthropic Messages";
/// `max_tokens` is required by the Messages API; this is used when none was set.
const DEFAULT_MAX_TOKENS: u32 = 4096;

pub(super) fn body(target: &Target, request: &ModelRequest<'_>, stream: bool) -> Value {
    let max_tokens = target.max_tokens.unwrap_or(DEFAULT_MAX_TOKENS);
    let mut body = json!({"model": target.model, "max_tokens": max_tokens,
        "messages": request.messages, "stream": stream});
    if let Some(system) = request.system {
        body["system"] = json!(system);
    }
    if !request.tools.is_empty() {
        body["tools"] = Value::Array(request.tools.to_vec());
    }
    body
}

pub(super) fn reply(reply: &Value) -> Result<ModelTurn, Error> {
    if reply.get("type").and_then(Value::as_str) == Some("error") {
        return Err(provider_error(NAME, reply.get("error").unwrap_or(reply)));
    }
    let content = reply
        .get("content")
        .and_then(Value::as_array)
        .ok_or_else(|| invalid(format!("{NAME} reply: no /content list")))?;
    let calls = anthropic::parse_calls(reply).map_err(unparsed)?;
    let text = texts(content);
    let finish = finish(reply.get("stop_reason").and_then(Value::as_str).unwrap_or("end_turn"));
    let assistant = vec![json!({"role": "assistant", "content": content})];
    let usage = usage(reply, "/usage/input_tokens", "/usage/output_tokens");
    Ok(ModelTurn { assistant, calls, text, finish, usage })
}

fn texts(blocks: &[Value]) -> String {
    blocks
        .iter()
        .filter(|block| block.get("type").and_then(Value::as_str) == Some("text"))
        .filter_map(|block| block.get("text").and_then(Value::as_str))
        .collect()
}

fn finish(reason: &str) -> Finish {
    finish_of(reason, &["end_turn", "stop_sequence"], &["tool_use"], &["max_tokens"])
}

/// One content block as far as it has streamed.
struct Block {
    value: Value,
    /// The `input_json_delta` fragments of a block that is not the caller's tool call (a
    /// server tool's input), parsed at its end.
    partial: String,
    /// The accumulator of a `tool_use` block.
    call: Option<CallAccumulator>,
    /// The finished call of a `tool_use` block.
    done: Option<ToolCall>,
}

/// The stream's state: the blocks by index, and how the message ended.
#[derive(Default)]
pub(super) struct Decoder {
    blocks: BTreeMap<u64, Block>,
    text: String,
    finish: Option<Finish>,
    stopped: bool,
    usage: Usage,
}

impl Decoder {
    fn start(&mut self, index: u64, event: &Value) -> Result<(), Error> {
        let Some(value) = event.get("content_block").filter(|block| block.is_object()).cloned()
        else {
            let message = format!("{NAME} stream: content block {index} starts without an object");
            return Err(invalid(message));
        };
        let call = (value.get("type").and_then(Value::as_str) == Some("tool_use")).then(|| {
            let mut call = CallAccumulator::default();
            call.push(event);
            call
        });
        self.blocks.insert(index, Block { value, partial: String::new(), call, done: None });
        Ok(())
    }

    fn delta(&mut self, index: u64, event: &Value, sink: &mut dyn TurnSink) {
        let Some(block) = self.blocks.get_mut(&index) else { return };
        let delta = event.get("delta").unwrap_or(&Value::Null);
        let text = |key: &str| delta.get(key).and_then(Value::as_str).unwrap_or_default();
        match delta.get("type").and_then(Value::as_str) {
            Some("text_delta") => {
                append(&mut block.value, "text", text("text"));
                self.text.push_str(text("text"));
                sink.text(text("text"));
            }
            Some("thinking_delta") => append(&mut block.value, "thinking", text("thinking")),
            Some("signature_delta") => block.value["signature"] = json!(text("signature")),
            Some("input_json_delta") => match &mut block.call {
                Some(call) => call.push(event),
                None => block.partial.push_str(text("partial_json")),
            },
            _ => {}
        }
    }

    fn stop(&mut self, index: u64, event: &Value, sink: &mut dyn TurnSink) -> Result<(), Error> {
        let Some(block) = self.blocks.get_mut(&index) else { return Ok(()) };
        if let Some(mut accumulator) = block.call.take() {
            accumulator.push(event);
            let call = accumulator.finish().map_err(unparsed)?.into_iter().next();
            if let Some(call) = call {
                block.value["input"] = crate::history::object_arguments(&call);
                sink.call(&call);
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
    fn event(&mut self, data: &str, sink: &mut dyn TurnSink) -> Result<(), Error> {
        // Nothing after the message's end counts: some gateways add an OpenAI-style
        // `data: [DONE]` to every stream.
        if self.stopped {
            return Ok(());
        }
        let event = super::json(data, NAME)?;
        let index = event.get("index").and_then(Value::as_u64);
        match (event.get("type").and_then(Value::as_str), index) {
            (Some("content_block_start"), Some(index)) => self.start(index, &event)?,
            (Some("content_block_delta"), Some(index)) => self.delta(index, &event, sink),
            (Some("content_block_stop"), Some(index)) => self.stop(index, &event, sink)?,
            (Some("message_start"), _) => {
                let counts =
                    usage(&event, "/message/usage/input_tokens", "/message/usage/output_tokens");
                self.usage = self.usage.updated(counts);
            }
            (Some("message_delta"), _) => {
                let counts = usage(&event, "/usage/input_tokens", "/usage/output_tokens");
                self.usage = self.usage.updated(counts);
                if let Some(reason) = event.pointer("/delta/stop_reason").and_then(Value::as_str) {
                    self.finish = Some(finish(reason));
                }
            }
            (Some("message_stop"), _) => self.stopped = true,
            (Some("error"), _) => {
                return Err(provider_error(NAME, event.get("error").unwrap_or(&event)));
            }
            _ => {}
        }
        Ok(())
    }

    fn finish(self: Box<Self>, _sink: &mut dyn TurnSink) -> Result<ModelTurn, Error> {
        if !self.stopped {
            return Err(cut(NAME));
        }
        let mut calls = Vec::new();
        let mut content = Vec::with_capacity(self.blocks.len());
        for block in self.blocks.into_values() {
            calls.extend(block.done);
            content.push(block.value);
        }
        let finish =
            self.finish.unwrap_or(if calls.is_empty() { Finish::Stop } else { Finish::ToolCalls });
        let assistant = vec![json!({"role": "assistant", "content": content})];
        Ok(ModelTurn { assistant, calls, text: self.text, finish, usage: self.usage })
    }
}
