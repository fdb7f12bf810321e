//! OpenAI Chat Completions streaming: tool calls assembled from `chat.completion.chunk`s.

use std::collections::BTreeMap;

use serde_json::Value;

use crate::provider::stream::{self, Partials};
use crate::record::ToolCall;

/// Assembles the tool calls of a streamed OpenAI Chat Completions reply from its chunks.
///
/// Each chunk's `choices[].delta.tool_calls[]` carries an `index`; the first piece of a call
/// carries its `id` and name, and the `arguments` fragments are joined per index (see
/// "Streaming" in OpenAI's Chat Completions API reference, `chat.completion.chunk`). What
/// OpenAI-compatible servers send differently is taken too:
///
/// - a name split over several deltas is joined, like the arguments; a delta that repeats the
///   call's id and whole name is a repeated header, not a second part;
/// - an empty `id` or name never replaces the one already received, and a delta that
///   carries nothing changes nothing;
/// - a delta without `index` (as Gemini's OpenAI-compatible endpoint sends) continues the call
///   with the same `id`; one with a new `id` starts a call after the others, and one with
///   neither continues the latest call of its choice.
///
/// Calls are kept apart per choice (`n > 1`): [`finish`](Self::finish) gives choice 0's calls,
/// [`finish_all`](Self::finish_all) every choice's.
///
/// ```
/// use serde_json::json;
/// use toolwire::provider::openai::CallAccumulator;
///
/// let mut calls = CallAccumulator::default();
/// for chunk in [
///     json!({"choices": [{"delta": {"tool_calls": [{"index": 0, "id": "call_1", "function": {"name": "get_weather", "arguments": ""}}]}}]}),
///     json!({"choices": [{"delta": {"tool_calls": [{"index": 0, "function": {"arguments": "{\"city\":"}}]}}]}),
///     json!({"choices": [{"delta": {"tool_calls": [{"index": 0, "function": {"arguments": "\"Paris\"}"}}]}}]}),
/// ] {
///     calls.push(&chunk);
/// }
/// let calls = calls.finish();
/// assert_eq!(calls[0].arguments, json!({"city": "Paris"}));
/// ```
#[derive(Debug, Default, Clone)]
pub struct CallAccumulator {
    /// By (choice index, call index).
    partials: Partials<(u64, u64)>,
}

impl CallAccumulator {
    /// Takes in one chunk; chunks without tool calls, such as content deltas, change nothing.
    pub fn push(&mut self, chunk: &Value) {
        let Some(choices) = chunk.get("choices").and_then(Value::as_array) else { return };
        for (position, choice) in (0u64..).zip(choices) {
            let choice_index = stream::index(choice, "index").unwrap_or(position);
            let deltas = choice.pointer("/delta/tool_calls").and_then(Value::as_array);
            for delta in deltas.into_iter().flatten() {
                self.take(choice_index, delta);
            }
            if choice.get("finish_reason").is_some_and(|reason| !reason.is_null()) {
                self.ready_before(choice_index, u64::MAX);
            }
        }
    }

    /// Marks the calls of `choice` before call index `index` as complete.
    fn ready_before(&mut self, choice: u64, index: u64) {
        let earlier = self.partials.iter_mut().filter(|((c, i), _)| *c == choice && *i < index);
        earlier.for_each(|(_, partial)| partial.ready = true);
    }

    /// The calls of choice 0 whose arguments are complete and that were not taken before, in
    /// index order: a call is complete once a later call of its choice begins, or once the
    /// choice has a `finish_reason`. Each call is taken once; [`finish`](Self::finish) still
    /// gives every call of the turn.
    ///
    /// ```
    /// use serde_json::json;
    /// use toolwire::provider::openai::CallAccumulator;
    ///
    /// let mut calls = CallAccumulator::default();
    /// let delta = |index: u64, id: &str, args: &str| json!({"choices": [{"delta": {"tool_calls": [
    ///     {"index": index, "id": id, "function": {"name": "f", "arguments": args}}]}}]});
    /// calls.push(&delta(0, "a", "{}"));
    /// assert!(calls.take_ready().is_empty(), "call a may still grow");
    /// calls.push(&delta(1, "b", "{}"));
    /// assert_eq!(calls.take_ready()[0].call_id, "a");
    /// calls.push(&json!({"choices": [{"delta": {}, "finish_reason": "tool_calls"}]}));
    /// assert_eq!(calls.take_ready()[0].call_id, "b");
    /// assert!(calls.take_ready().is_empty());
    /// ```
    pub fn take_ready(&mut self) -> Vec<ToolCall> {
        let ready = self.partials.take_ready(false);
        ready.into_iter().filter(|((choice, _), _)| *choice == 0).map(|(_, call)| call).collect()
    }

    /// At the end of the stream, every call is complete: the calls of choice 0 not taken
    /// before, in index order (for a server that closes without a `finish_reason`).
    pub fn take_rest(&mut self) -> Vec<ToolCall> {
        self.ready_before(0, u64::MAX);
        let ready = self.partials.take_ready(false);
        ready.into_iter().filter(|((choice, _), _)| *choice == 0).map(|(_, call)| call).collect()
    }

    /// Adds one `tool_calls[]` delta of choice `choice`.
    fn take(&mut self, choice: u64, delta: &Value) {
        let id = stream::text(delta, "id").filter(|id| !id.is_empty());
        let function = delta.get("function").unwrap_or(&Value::Null);
        let name = stream::text(function, "name").unwrap_or_default();
        let fragment = stream::text(function, "arguments").unwrap_or_default();
        if id.is_none() && name.is_empty() && fragment.is_empty() {
            return;
        }
        let index = stream::index(delta, "index").unwrap_or_else(|| self.unindexed(choice, id));
        if !self.partials.contains(&(choice, index)) {
            self.ready_before(choice, index);
        }
        let partial = self.partials.at((choice, index));
        let repeated =
            id.is_some() && partial.id.as_deref() == id && partial.name.as_deref() == Some(name);
        partial.keep_id(id);
        if !name.is_empty() && !repeated {
            partial.name.get_or_insert_with(String::new).push_str(name);
        }
        partial.arguments.push_str(fragment);
    }

    /// The call index of a delta without one: the call with its `id`, a new call after the
    /// others for a new `id`, or the latest call when it has no `id`.
    fn unindexed(&self, choice: u64, id: Option<&str>) -> u64 {
        let calls = || self.partials.iter().filter(move |((c, _), _)| *c == choice);
        let last = calls().last().map(|((_, index), _)| *index);
        let next = last.map_or(0, |index| index.saturating_add(1));
        match id {
            Some(id) => calls()
                .find(|(_, partial)| partial.id.as_deref() == Some(id))
                .map_or(next, |((_, index), _)| *index),
            None => last.unwrap_or(0),
        }
    }

    /// The assembled calls of choice 0 (the only choice unless the request set `n`), in
    /// index order. A call that never received its id or name fails alone, saying so.
    pub fn finish(self) -> Vec<ToolCall> {
        self.finish_all().remove(&0).unwrap_or_default()
    }

    /// The assembled calls of every choice that made any, by choice index, each in index
    /// order; see [`finish`](Self::finish).
    pub fn finish_all(self) -> BTreeMap<u64, Vec<ToolCall>> {
        let mut choices: BTreeMap<u64, Vec<ToolCall>> = BTreeMap::new();
        for ((choice, _), call) in self.partials.finish(false) {
            choices.entry(choice).or_default().push(call);
        }
        choices
    }

    /// The calls of choice 0 whose arguments are complete, taken or not, in index order: what
    /// a stream that was cut off made.
    pub(in crate::provider) fn complete(self) -> Vec<ToolCall> {
        let complete = self.partials.finish_complete(false);
        complete.filter(|((choice, _), _)| *choice == 0).map(|(_, call)| call).collect()
    }
}
