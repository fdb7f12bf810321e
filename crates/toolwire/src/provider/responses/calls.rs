//! OpenAI Responses streaming: `function_call` items assembled from server-sent events.

use serde_json::Value;

use super::parallel::expand_into;
use crate::provider::stream::{self, Partials};
use crate::record::ToolCall;

/// Assembles the `function_call` items of a streamed OpenAI Responses reply from its events.
///
/// `response.output_item.added` opens a call with its `call_id` and name;
/// `response.function_call_arguments.delta` fragments are joined per `output_index`, and
/// `response.function_call_arguments.done` (or `response.output_item.done`) supplies the whole
/// arguments when it comes (see "Streaming events" in OpenAI's Responses API reference).
/// When the `call_id` of `response.output_item.done`, or of the item in
/// `response.completed`'s `output`, differs from the one the call opened with, the later one
/// is taken: it is the one the server knows the call by. Parallel wrappers are expanded as
/// [`parse_calls`](super::parse_calls) does.
#[derive(Debug, Default, Clone)]
pub struct CallAccumulator {
    partials: Partials<u64>,
}

impl CallAccumulator {
    /// Takes in one event; events about other items change nothing.
    pub fn push(&mut self, event: &Value) {
        if stream::text(event, "type") == Some("response.completed") {
            return self.completed(event.get("response").unwrap_or(&Value::Null));
        }
        let Some(index) = stream::index(event, "output_index") else { return };
        match stream::text(event, "type") {
            Some("response.output_item.added") => self.item(index, event.get("item"), false),
            Some("response.output_item.done") => self.item(index, event.get("item"), true),
            Some("response.function_call_arguments.delta") => {
                let fragment = stream::text(event, "delta").unwrap_or_default();
                self.partials.at(index).arguments.push_str(fragment);
            }
            Some("response.function_call_arguments.done") => {
                if let Some(arguments) = stream::text(event, "arguments") {
                    self.partials.at(index).arguments = arguments.to_owned();
                }
            }
            _ => {}
        }
    }

    /// Takes the items of the finished response's `output`, each at its index.
    fn completed(&mut self, response: &Value) {
        let output = response.get("output").and_then(Value::as_array);
        for (index, item) in (0u64..).zip(output.into_iter().flatten()) {
            self.item(index, Some(item), true);
        }
    }

    /// Takes what a `function_call` item says of the call at `index`. The `call_id` of a
    /// `last` item (the finished one, as the server knows it) replaces the one the call had.
    fn item(&mut self, index: u64, item: Option<&Value>, last: bool) {
        let item = item.unwrap_or(&Value::Null);
        let search = super::search::is_call(item);
        if !search && stream::text(item, "type") != Some("function_call") {
            return;
        }
        let partial = self.partials.at(index);
        let call_id = stream::text(item, "call_id");
        partial.ready |= last;
        if last {
            partial.replace_id(call_id);
        } else {
            partial.keep_id(call_id);
        }
        if search {
            // A client-executed search: its arguments come whole, as an object.
            partial.keep_name(Some(crate::registry::SEARCH_TOOL));
            if let Some(arguments) = item.get("arguments").filter(|a| a.is_object()) {
                partial.arguments = arguments.to_string();
            }
            return;
        }
        partial.keep_name(stream::text(item, "name"));
        if let Some(arguments) = stream::text(item, "arguments").filter(|a| !a.is_empty()) {
            partial.arguments = arguments.to_owned();
        }
    }

    /// The calls of the items that are done (`response.output_item.done`, or the finished
    /// response), under the `call_id` the server finished them with, that were not taken
    /// before, in output order; a parallel-call wrapper gives its calls. Each item is taken
    /// once; [`finish`](Self::finish) still gives every call.
    pub fn take_ready(&mut self) -> Vec<ToolCall> {
        let mut calls = Vec::new();
        for (_, call) in self.partials.take_ready(false) {
            expand_into(call, &mut calls);
        }
        calls
    }

    /// The assembled calls, in output order. A call that never received its `call_id` or
    /// name fails alone, saying so.
    pub fn finish(self) -> Vec<ToolCall> {
        let mut calls = Vec::new();
        for (_, call) in self.partials.finish(false) {
            expand_into(call, &mut calls);
        }
        calls
    }

    /// The calls of the items that are done, taken or not, in output order: what a stream
    /// that was cut off made.
    pub(in crate::provider) fn complete(self) -> Vec<ToolCall> {
        let mut calls = Vec::new();
        for (_, call) in self.partials.finish_complete(false) {
            expand_into(call, &mut calls);
        }
        calls
    }
}
