//! OpenAI Responses streamed: typed events ending in `response.completed` (or
//! `response.incomplete`), into one turn.

use serde_json::{Value, json};

use super::{CallAccumulator, TITLE, render_turn};
use crate::provider::decode::{Decode, Heard};
use crate::provider::decode_error::DecodeError;
use crate::provider::events::{cut, json, provider_error};
use crate::provider::turn::ModelTurn;

/// The stream's state: the calls so far, and the final response.
///
/// A call is told when its item is done (`response.output_item.done`), not when its
/// arguments are: the server may give the item another `call_id` in `done` than in `added`,
/// and the one in `done` is the one it knows. The accumulator hands each call out once, so a
/// call whose id changed again in `response.completed` is not told twice.
#[derive(Default)]
pub(super) struct Decoder {
    calls: CallAccumulator,
    text: String,
    thinking: String,
    response: Option<Value>,
    /// The turn of the final response, once the stream ended with one.
    turn: Option<ModelTurn>,
}

impl Decode for Decoder {
    fn push(&mut self, data: &str, heard: &mut Heard) -> Result<(), DecodeError> {
        let event = json(data, TITLE)?;
        let kind = event.get("type").and_then(Value::as_str).unwrap_or_default();
        let is_call = matches!(
            event.pointer("/item/type").and_then(Value::as_str),
            Some("function_call" | super::search::CALL_ITEM)
        );
        let delta = || event.get("delta").and_then(Value::as_str).unwrap_or_default();
        match kind {
            "response.output_text.delta" => {
                self.text.push_str(delta());
                heard.text(delta());
            }
            "response.reasoning_summary_text.delta" => self.thinking.push_str(delta()),
            "response.output_item.added"
            | "response.function_call_arguments.delta"
            | "response.function_call_arguments.done" => self.calls.push(&event),
            "response.output_item.done" if is_call => {
                self.calls.push(&event);
                heard.calls(self.calls.take_ready());
            }
            "response.completed" | "response.incomplete" => {
                self.response = event.get("response").cloned();
            }
            "response.failed" => {
                let error = event
                    .pointer("/response/error")
                    .cloned()
                    .unwrap_or(json!({"message": "the response failed"}));
                return Err(provider_error(TITLE, &error));
            }
            "error" => return Err(provider_error(TITLE, &event)),
            _ => {}
        }
        Ok(())
    }

    fn end(&mut self, heard: &mut Heard) -> Result<(), DecodeError> {
        let Some(response) = &self.response else { return Err(cut(TITLE)) };
        let turn = super::reply::read(response)?;
        // Items the stream never finished: their calls, as the final response has them.
        self.calls.push(&json!({"type": "response.completed", "response": response}));
        heard.calls(self.calls.take_ready());
        self.turn = Some(turn);
        Ok(())
    }

    fn finish(self: Box<Self>) -> ModelTurn {
        match self.turn {
            Some(turn) => turn,
            None => {
                let calls = self.calls.complete();
                ModelTurn::new(render_turn(&self.text, &calls), calls)
                    .with_text(self.text)
                    .with_thinking(self.thinking)
            }
        }
    }
}
