//! OpenAI Responses over HTTP: `POST {base}/responses`, and its typed event stream ending in
//! `response.completed` (or `response.incomplete`).

use std::collections::{BTreeMap, BTreeSet};

use serde_json::{Value, json};
use toolwire::provider::responses::{self, CallAccumulator};

use super::{Decode, Target, cut, invalid, provider_error, reported_error, unparsed};
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
    Ok(ModelTurn { assistant: output.clone(), calls, text, finish })
}

/// The stream's state: each function call item by its output index, the indexes whose calls
/// were reported, and the final response.
///
/// A call is reported when its item is done (`response.output_item.done`), not when its
/// arguments are: the server may give the item another `call_id` in `done` than in `added`,
/// and the one in `done` is the one it knows. Reports are counted by output index, so a call
/// whose id changed again in `response.completed` is not reported twice.
#[derive(Default)]
pub(super) struct Decoder {
    items: BTreeMap<u64, CallAccumulator>,
    reported: BTreeSet<u64>,
    text: String,
    response: Option<Value>,
}

impl Decoder {
    /// Reports the calls of the item at `index`, the first time it is done.
    fn report(&mut self, index: u64, sink: &mut dyn TurnSink) -> Result<(), Error> {
        let Some(item) = self.items.get(&index) else { return Ok(()) };
        if !self.reported.insert(index) {
            return Ok(());
        }
        for call in item.clone().finish().map_err(unparsed)? {
            sink.call(&call);
        }
        Ok(())
    }
}

impl Decode for Decoder {
    fn event(&mut self, data: &str, sink: &mut dyn TurnSink) -> Result<(), Error> {
        let event = super::json(data, NAME)?;
        let kind = event.get("type").and_then(Value::as_str).unwrap_or_default();
        let index = event.get("output_index").and_then(Value::as_u64);
        let is_call = event.pointer("/item/type").and_then(Value::as_str) == Some("function_call");
        match kind {
            "response.output_text.delta" => {
                let delta = event.get("delta").and_then(Value::as_str).unwrap_or_default();
                self.text.push_str(delta);
                sink.text(delta);
            }
            "response.output_item.added" | "response.function_call_arguments.delta"
                if is_call || kind.ends_with(".delta") =>
            {
                if let Some(index) = index {
                    self.items.entry(index).or_default().push(&event);
                }
            }
            "response.function_call_arguments.done" => {
                if let Some(index) = index {
                    self.items.entry(index).or_default().push(&event);
                }
            }
            "response.output_item.done" if is_call => {
                if let Some(index) = index {
                    self.items.entry(index).or_default().push(&event);
                    self.report(index, sink)?;
                }
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
        let output =
            response.get("output").and_then(Value::as_array).map_or(&[][..], Vec::as_slice);
        for (index, item) in (0u64..).zip(output) {
            let is_call = item.get("type").and_then(Value::as_str) == Some("function_call");
            if is_call && !self.reported.contains(&index) {
                let alone = json!({"output": [item]});
                for call in responses::parse_calls(&alone).map_err(unparsed)? {
                    sink.call(&call);
                }
            }
        }
        Ok(turn)
    }
}
