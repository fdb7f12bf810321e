//! OpenAI Responses over HTTP: `POST {base}/responses`, and its typed event stream ending in
//! `response.completed` (or `response.incomplete`).

use serde_json::{Value, json};
use toolwire::provider::responses::{self, CallAccumulator};

use super::{Decode, Target, cut, invalid, provider_error, reported_error, unparsed, usage};
use crate::Error;
use crate::client::{Finish, ModelRequest, ModelTurn, TurnSink};

const NAME: &str = "OpenAI Responses";

pub(super) fn body(target: &Target, request: &ModelRequest<'_>, stream: bool) -> Value {
    let mut body = json!({"model": target.model, "input": request.messages, "stream": stream});
    if let Some(system) = request.system {
        body["instructions"] = json!(system);
    }
    if !request.tools.is_empty() {
        body["tools"] = Value::Array(request.tools.to_vec());
    }
    if let Some(max) = target.max_tokens {
        body["max_output_tokens"] = json!(max);
    }
    body
}

pub(super) fn reply(reply: &Value) -> Result<ModelTurn, Error> {
    reported_error(NAME, reply)?;
    let output = reply
        .get("output")
        .and_then(Value::as_array)
        .ok_or_else(|| invalid(format!("{NAME} reply: no /output list")))?;
    let calls = responses::parse_calls(reply).map_err(unparsed)?;
    let text = output
        .iter()
        .filter(|item| item.get("type").and_then(Value::as_str) == Some("message"))
        .filter_map(|item| item.get("content").and_then(Value::as_array))
        .flatten()
        .filter(|part| part.get("type").and_then(Value::as_str) == Some("output_text"))
        .filter_map(|part| part.get("text").and_then(Value::as_str))
        .collect();
    let finish = match reply.get("status").and_then(Value::as_str) {
        Some("incomplete") => {
            let why = reply.pointer("/incomplete_details/reason").and_then(Value::as_str);
            if why == Some("max_output_tokens") {
                Finish::Length
            } else {
                Finish::Other(why.unwrap_or("incomplete").to_owned())
            }
        }
        Some("failed") => {
            return Err(provider_error(NAME, &json!({"message": "the response failed"})));
        }
        _ if calls.is_empty() => Finish::Stop,
        _ => Finish::ToolCalls,
    };
    let usage = usage(reply, "/usage/input_tokens", "/usage/output_tokens");
    Ok(ModelTurn { assistant: output.clone(), calls, text, finish, usage })
}

/// The stream's state: the calls so far, and the final response.
///
/// A call is reported when its item is done (`response.output_item.done`), not when its
/// arguments are: the server may give the item another `call_id` in `done` than in `added`,
/// and the one in `done` is the one it knows. The accumulator hands each call out once, so a
/// call whose id changed again in `response.completed` is not reported twice.
#[derive(Default)]
pub(super) struct Decoder {
    calls: CallAccumulator,
    text: String,
    response: Option<Value>,
}

impl Decoder {
    /// Reports the calls whose items are done.
    fn report(&mut self, sink: &mut dyn TurnSink) {
        for call in self.calls.take_ready() {
            sink.call(&call);
        }
    }
}

impl Decode for Decoder {
    fn event(&mut self, data: &str, sink: &mut dyn TurnSink) -> Result<(), Error> {
        let event = super::json(data, NAME)?;
        let kind = event.get("type").and_then(Value::as_str).unwrap_or_default();
        let is_call = event.pointer("/item/type").and_then(Value::as_str) == Some("function_call");
        match kind {
            "response.output_text.delta" => {
                let delta = event.get("delta").and_then(Value::as_str).unwrap_or_default();
                self.text.push_str(delta);
                sink.text(delta);
            }
            "response.output_item.added"
            | "response.function_call_arguments.delta"
            | "response.function_call_arguments.done" => self.calls.push(&event),
            "response.output_item.done" if is_call => {
                self.calls.push(&event);
                self.report(sink);
            }
            "response.completed" | "response.incomplete" => {
                self.response = event.get("response").cloned()
            }
            "response.failed" => {
                let error = event
                    .pointer("/response/error")
                    .cloned()
                    .unwrap_or(json!({"message": "the response failed"}));
                return Err(provider_error(NAME, &error));
            }
            "error" => return Err(provider_error(NAME, &event)),
            _ => {}
        }
        Ok(())
    }

    fn finish(self: Box<Self>, sink: &mut dyn TurnSink) -> Result<ModelTurn, Error> {
        let Some(response) = self.response else { return Err(cut(NAME)) };
        let turn = reply(&response)?;
        // Items the stream never finished: their calls, as the final response has them.
        let mut calls = self.calls;
        calls.push(&json!({"type": "response.completed", "response": response}));
        for call in calls.take_ready() {
            sink.call(&call);
        }
        Ok(turn)
    }
}
