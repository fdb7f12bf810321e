//! OpenAI Chat Completions over HTTP: `POST {base}/chat/completions`, and its
//! `chat.completion.chunk` stream ending in `data: [DONE]`.

use serde_json::{Value, json};
use toolwire::ToolCall;
use toolwire::provider::openai::{self, CallAccumulator};

use super::{Decode, Target, cut, finish_of, invalid, reported_error, unparsed};
use crate::Error;
use crate::client::{Finish, ModelRequest, ModelTurn, TurnSink};
use crate::history::openai_assistant;

const NAME: &str = "OpenAI Chat Completions";

pub(super) fn body(target: &Target, request: &ModelRequest<'_>, stream: bool) -> Value {
    let mut messages = Vec::with_capacity(request.messages.len() + 1);
    if let Some(system) = request.system {
        messages.push(json!({"role": "system", "content": system}));
    }
    messages.extend(request.messages.iter().cloned());
    let mut body = json!({"model": target.model, "messages": messages, "stream": stream});
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
    Ok(ModelTurn { assistant: vec![assistant], calls, text, finish })
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

/// The stream's state: the calls so far, and which of them were reported.
#[derive(Default)]
pub(super) struct Decoder {
    calls: CallAccumulator,
    text: String,
    finish: Option<Finish>,
    done: bool,
    /// The keys (index, or id for servers that send none) of the calls begun, in order.
    begun: Vec<String>,
    reported: usize,
}

impl Decoder {
    /// Notes the calls a chunk begins; a call is complete once the next one begins.
    fn begin_calls(&mut self, chunk: &Value) {
        let deltas = chunk.pointer("/choices/0/delta/tool_calls").and_then(Value::as_array);
        for delta in deltas.into_iter().flatten() {
            let key = match (
                delta.get("index").and_then(Value::as_u64),
                delta.get("id").and_then(Value::as_str),
            ) {
                (Some(index), _) => index.to_string(),
                (None, Some(id)) if !id.is_empty() => id.to_owned(),
                _ => continue,
            };
            if !self.begun.contains(&key) {
                self.begun.push(key);
            }
        }
    }

    /// Reports the first `ready` calls not reported yet.
    fn report(&mut self, ready: usize, sink: &mut dyn TurnSink) -> Result<(), Error> {
        if ready <= self.reported {
            return Ok(());
        }
        let calls: Vec<ToolCall> = self.calls.clone().finish().map_err(unparsed)?;
        for call in calls.iter().take(ready).skip(self.reported) {
            sink.call(call);
        }
        self.reported = ready.min(calls.len()).max(self.reported);
        Ok(())
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
        let before = self.begun.len();
        self.begin_calls(&chunk);
        self.calls.push(&chunk);
        if self.begun.len() > before && before > 0 {
            self.report(self.begun.len() - 1, sink)?;
        }
        if let Some(reason) = chunk.pointer("/choices/0/finish_reason").and_then(Value::as_str) {
            self.finish = Some(finish(reason));
            self.report(usize::MAX, sink)?;
        }
        Ok(())
    }

    fn finish(mut self: Box<Self>, sink: &mut dyn TurnSink) -> Result<ModelTurn, Error> {
        if self.finish.is_none() && !self.done {
            return Err(cut(NAME));
        }
        self.report(usize::MAX, sink)?;
        let calls = self.calls.finish().map_err(unparsed)?;
        // A server that ends with `[DONE]` but names no reason finished normally.
        let finish = self.finish.take().unwrap_or(if calls.is_empty() {
            Finish::Stop
        } else {
            Finish::ToolCalls
        });
        let assistant = vec![openai_assistant(&self.text, &calls)];
        Ok(ModelTurn { assistant, calls, text: self.text, finish })
    }
}
