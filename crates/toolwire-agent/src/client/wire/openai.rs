//! OpenAI Chat Completions over HTTP: `POST {base}/chat/completions`, and its
//! `chat.completion.chunk` stream ending in `data: [DONE]`.

use serde_json::{Value, json};
use toolwire::provider::openai::{self, CallAccumulator};

use super::{Decode, Target, cut, finish_of, invalid, reported_error, unparsed, usage};
use crate::Error;
use crate::client::{Finish, ModelRequest, ModelTurn, TurnSink, Usage};
use crate::history::openai_assistant;

const NAME: &str = "OpenAI Chat Completions";

pub(super) fn body(target: &Target, request: &ModelRequest<'_>, stream: bool) -> Value {
    let mut messages = Vec::with_capacity(request.messages.len() + 1);
    if let Some(system) = request.system {
        messages.push(json!({"role": "system", "content": system}));
    }
    messages.extend(request.messages.iter().cloned());
    let mut body = json!({"model": target.model, "messages": messages, "stream": stream});
    if stream {
        // The last chunk then reports the tokens used.
        body["stream_options"] = json!({"include_usage": true});
    }
    if !request.tools.is_empty() {
        body["tools"] = Value::Array(request.tools.to_vec());
    }
    if let Some(max) = target.max_tokens {
        body["max_completion_tokens"] = json!(max);
    }
    body
}

pub(super) fn reply(reply: &Value) -> Result<ModelTurn, Error> {
    reported_error(NAME, reply)?;
    let choice = reply
        .pointer("/choices/0")
        .ok_or_else(|| invalid(format!("{NAME} reply: no /choices/0")))?;
    let message = choice
        .get("message")
        .ok_or_else(|| invalid(format!("{NAME} reply: no /choices/0/message")))?;
    let calls = openai::parse_calls(reply).map_err(unparsed)?;
    let text = content_text(message.get("content"));
    let finish = finish(choice.get("finish_reason").and_then(Value::as_str).unwrap_or("stop"));
    let mut assistant = json!({"role": "assistant", "content": message.get("content").cloned().unwrap_or(Value::Null)});
    if let Some(tool_calls) =
        message.get("tool_calls").filter(|c| c.as_array().is_some_and(|c| !c.is_empty()))
    {
        assistant["tool_calls"] = tool_calls.clone();
    }
    let usage = tokens(reply);
    Ok(ModelTurn { assistant: vec![assistant], calls, text, finish, usage })
}

/// The text of a message's `content`: a string, or a list of `{"type": "text", "text"}` parts.
fn content_text(content: Option<&Value>) -> String {
    match content {
        Some(Value::String(text)) => text.clone(),
        Some(Value::Array(parts)) => parts.iter().filter_map(|p| p.get("text")?.as_str()).collect(),
        _ => String::new(),
    }
}

fn finish(reason: &str) -> Finish {
    finish_of(reason, &["stop"], &["tool_calls", "function_call"], &["length"])
}

/// The `usage` of a reply or of a stream's last chunk.
fn tokens(value: &Value) -> Usage {
    usage(value, "/usage/prompt_tokens", "/usage/completion_tokens")
}

/// The stream's state: the calls so far (the accumulator says which are complete).
#[derive(Default)]
pub(super) struct Decoder {
    calls: CallAccumulator,
    text: String,
    finish: Option<Finish>,
    done: bool,
    usage: Usage,
}

impl Decoder {
    /// Reports the calls whose arguments became complete.
    fn report(&mut self, sink: &mut dyn TurnSink) {
        for call in self.calls.take_ready() {
            sink.call(&call);
        }
    }
}

impl Decode for Decoder {
    fn event(&mut self, data: &str, sink: &mut dyn TurnSink) -> Result<(), Error> {
        if data.trim() == "[DONE]" {
            self.done = true;
            return Ok(());
        }
        let chunk = super::json(data, NAME)?;
        reported_error(NAME, &chunk)?;
        if let Some(delta) = chunk.pointer("/choices/0/delta/content").and_then(Value::as_str) {
            self.text.push_str(delta);
            sink.text(delta);
        }
        self.calls.push(&chunk);
        if let Some(reason) = chunk.pointer("/choices/0/finish_reason").and_then(Value::as_str) {
            self.finish = Some(finish(reason));
        }
        self.usage = self.usage.updated(tokens(&chunk));
        self.report(sink);
        Ok(())
    }

    fn finish(mut self: Box<Self>, sink: &mut dyn TurnSink) -> Result<ModelTurn, Error> {
        if self.finish.is_none() && !self.done {
            return Err(cut(NAME));
        }
        // A stream that ends with `[DONE]` and no reason: its calls are complete now.
        for call in self.calls.take_rest() {
            sink.call(&call);
        }
        let calls = self.calls.finish().map_err(unparsed)?;
        // A server that ends with `[DONE]` but names no reason finished normally.
        let finish = self.finish.take().unwrap_or(if calls.is_empty() {
            Finish::Stop
        } else {
            Finish::ToolCalls
        });
        let assistant = vec![openai_assistant(&self.text, &calls)];
        Ok(ModelTurn { assistant, calls, text: self.text, finish, usage: self.usage })
    }
}
