//! Gemini over HTTP: `POST {base}/models/{model}:generateContent`, and
//! `:streamGenerateContent?alt=sse`, whose every event is a partial response.

use serde_json::{Value, json};
use toolwire::provider::gemini::{self, CallAccumulator};

use super::{Decode, Target, cut, finish_of, invalid, reported_error, unparsed, usage};
use crate::Error;
use crate::client::{Finish, ModelRequest, ModelTurn, TurnSink, Usage};
use crate::history::gemini_call;

const NAME: &str = "Gemini";

pub(super) fn body(target: &Target, request: &ModelRequest<'_>) -> Value {
    let mut body = json!({"contents": request.messages});
    if let Some(system) = request.system {
        body["systemInstruction"] = json!({"parts": [{"text": system}]});
    }
    if !request.tools.is_empty() {
        body["tools"] = json!([{"functionDeclarations": request.tools}]);
    }
    if let Some(max) = target.max_tokens {
        body["generationConfig"] = json!({"maxOutputTokens": max});
    }
    body
}

pub(super) fn reply(reply: &Value) -> Result<ModelTurn, Error> {
    reported_error(NAME, reply)?;
    let Some(candidate) = reply.pointer("/candidates/0") else {
        let blocked = reply.pointer("/promptFeedback/blockReason").and_then(Value::as_str);
        return match blocked {
            Some(reason) => Ok(empty(Finish::Other(format!("blocked: {reason}")))),
            None => Err(invalid(format!("{NAME} reply: no /candidates/0"))),
        };
    };
    let calls = match candidate.pointer("/content/parts") {
        Some(_) => gemini::parse_calls(reply).map_err(unparsed)?,
        None => Vec::new(),
    };
    let content =
        candidate.get("content").cloned().unwrap_or(json!({"role": "model", "parts": []}));
    let text = texts(content.get("parts"));
    let reason = candidate.get("finishReason").and_then(Value::as_str).unwrap_or("STOP");
    let finish = match finish(reason) {
        Finish::Stop if !calls.is_empty() => Finish::ToolCalls,
        other => other,
    };
    Ok(ModelTurn { assistant: vec![content], calls, text, finish, usage: tokens(reply) })
}

fn empty(finish: Finish) -> ModelTurn {
    let (assistant, calls, text, usage) = (Vec::new(), Vec::new(), String::new(), Usage::default());
    ModelTurn { assistant, calls, text, finish, usage }
}

/// The `usageMetadata` of a reply or of a chunk (the totals so far).
fn tokens(value: &Value) -> Usage {
    usage(value, "/usageMetadata/promptTokenCount", "/usageMetadata/candidatesTokenCount")
}

/// The text of the parts that are not thoughts.
fn texts(parts: Option<&Value>) -> String {
    let parts = parts.and_then(Value::as_array).map(Vec::as_slice).unwrap_or_default();
    parts
        .iter()
        .filter(|part| part.get("thought").and_then(Value::as_bool) != Some(true))
        .filter_map(|part| part.get("text").and_then(Value::as_str))
        .collect()
}

fn finish(reason: &str) -> Finish {
    finish_of(reason, &["STOP"], &[], &["MAX_TOKENS"])
}

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
    count: usize,
    reported: usize,
    parts: Vec<Part>,
    text: String,
    finish: Option<Finish>,
    usage: Usage,
}

impl Decoder {
    fn keep(&mut self, part: &Value, sink: &mut dyn TurnSink) {
        let plain = part.get("thought").is_none() && part.get("thoughtSignature").is_none();
        if let (Some(text), true) = (part.get("text").and_then(Value::as_str), plain) {
            self.text.push_str(text);
            sink.text(text);
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
    fn event(&mut self, data: &str, sink: &mut dyn TurnSink) -> Result<(), Error> {
        let chunk = super::json(data, NAME)?;
        reported_error(NAME, &chunk)?;
        self.usage = self.usage.updated(tokens(&chunk));
        self.calls.push(&chunk);
        let parts = chunk.pointer("/candidates/0/content/parts").and_then(Value::as_array);
        for part in parts.into_iter().flatten() {
            match part.get("functionCall") {
                Some(_) => {
                    if self.calls.len() > self.count {
                        self.count += 1;
                        self.parts.push(Part::Call(
                            self.count - 1,
                            part.get("thoughtSignature").cloned(),
                        ));
                    }
                }
                None => self.keep(part, sink),
            }
        }
        for call in self.calls.take_ready() {
            sink.call(&call);
            self.reported += 1;
        }
        if let Some(reason) = chunk.pointer("/candidates/0/finishReason").and_then(Value::as_str) {
            self.finish = Some(finish(reason));
        }
        Ok(())
    }

    fn finish(self: Box<Self>, sink: &mut dyn TurnSink) -> Result<ModelTurn, Error> {
        let Some(finish) = self.finish else { return Err(cut(NAME)) };
        let calls = self.calls.finish().map_err(unparsed)?;
        for call in calls.iter().skip(self.reported) {
            sink.call(call);
        }
        let parts: Vec<Value> = self
            .parts
            .into_iter()
            .map(|part| match part {
                Part::Kept(value) => value,
                Part::Call(n, signature) => {
                    let mut value = json!({"functionCall": calls.get(n).map(gemini_call)});
                    if let Some(signature) = signature {
                        value["thoughtSignature"] = signature;
                    }
                    value
                }
            })
            .collect();
        let finish = match finish {
            Finish::Stop if !calls.is_empty() => Finish::ToolCalls,
            other => other,
        };
        let assistant = vec![json!({"role": "model", "parts": parts})];
        Ok(ModelTurn { assistant, calls, text: self.text, finish, usage: self.usage })
    }
}
