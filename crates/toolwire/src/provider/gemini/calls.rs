//! Gemini streaming: `functionCall` parts assembled from streamed `generateContent` chunks.

use serde_json::Value;

use super::path;
use super::{new_call_id, parts_of};
use crate::provider::parse::malformed;
use crate::provider::stream;
use crate::record::ToolCall;

/// Assembles the `functionCall` parts of a streamed Gemini `generateContent` reply
/// (`streamGenerateContent`) from its chunks, reading the first candidate of each.
///
/// A `functionCall` part without `willContinue` is a whole call. With
/// `functionCallingConfig.streamFunctionCallArguments`, a call instead comes in several
/// parts: the first has its name and `willContinue: true`, the next ones carry `partialArgs`
/// (each a `jsonPath` such as `$.city` and a `stringValue`, `numberValue`, `boolValue` or
/// `nullValue`; a string with `willContinue` goes on in the next entry for the same path),
/// and the part without `willContinue` ends it. These fields are documented on `FunctionCall`
/// and `PartialArg` in the Gen AI SDKs' type references (google-genai), and on Vertex AI.
///
/// A call's `id` is optional: a call Gemini streamed without one gets a new unique id when its
/// first part arrives, as [`parse_calls`](super::parse_calls) gives it, and the
/// renderers never send that id back to Gemini.
///
/// ```
/// use serde_json::json;
/// use toolwire::provider::gemini::CallAccumulator;
///
/// let chunk = |call| json!({"candidates": [{"content": {"role": "model", "parts": [{"functionCall": call}]}}]});
/// let mut calls = CallAccumulator::default();
/// calls.push(&chunk(json!({"name": "get_weather", "willContinue": true})));
/// calls.push(&chunk(json!({"partialArgs": [{"jsonPath": "$.city", "stringValue": "Os", "willContinue": true}], "willContinue": true})));
/// calls.push(&chunk(json!({"partialArgs": [{"jsonPath": "$.city", "stringValue": "lo"}], "willContinue": true})));
/// calls.push(&chunk(json!({})));
/// let calls = calls.finish();
/// assert_eq!((&*calls[0].tool, &calls[0].arguments), ("get_weather", &json!({"city": "Oslo"})));
/// ```
#[derive(Debug, Default, Clone)]
pub struct CallAccumulator {
    calls: Vec<Building>,
    /// Whether the last call said more of it follows.
    open: bool,
}

/// One call as far as it has streamed.
#[derive(Debug, Clone)]
struct Building {
    /// Gemini's id for the call, or the one made for it until Gemini sends one.
    id: String,
    /// Whether `id` is Gemini's.
    given_id: bool,
    name: String,
    args: Value,
    /// Why the call cannot run, once known.
    broken: Option<String>,
    /// The path of a string argument whose next piece is still to come.
    continuing: Option<String>,
    /// Whether [`CallAccumulator::take_ready`] handed it out already.
    taken: bool,
}

impl CallAccumulator {
    /// Takes in one chunk; chunks without `functionCall` parts, and values that are not
    /// chunks, change nothing.
    pub fn push(&mut self, chunk: &Value) {
        if let Ok((parts, _)) = parts_of(chunk) {
            self.take_parts(parts);
        }
    }

    /// Takes in the `functionCall`s of `parts`, in order.
    pub(super) fn take_parts(&mut self, parts: &[Value]) {
        for call in parts.iter().filter_map(|part| part.get("functionCall")) {
            self.take(call);
        }
    }

    /// Adds one `functionCall`: more of the open call, or a new call.
    fn take(&mut self, call: &Value) {
        let name = stream::text(call, "name").filter(|name| !name.is_empty());
        let last_name = self.calls.last().map(|last| last.name.as_str());
        if !self.open || name.is_some_and(|name| Some(name) != last_name) {
            self.calls.push(Building::new());
        }
        let Some(building) = self.calls.last_mut() else { return };
        building.keep_id(stream::text(call, "id"));
        if building.name.is_empty() {
            building.name = name.unwrap_or_default().to_owned();
        }
        building.merge_args(call.get("args"));
        let partial_args = call.get("partialArgs").and_then(Value::as_array);
        partial_args.into_iter().flatten().for_each(|partial| building.apply(partial));
        self.open = call.get("willContinue").and_then(Value::as_bool) == Some(true);
    }

    /// How many calls have begun, complete or not.
    pub fn len(&self) -> usize {
        self.calls.len()
    }

    /// Whether no call has begun.
    pub fn is_empty(&self) -> bool {
        self.calls.is_empty()
    }

    /// The calls whose last part came (every call but one still saying `willContinue`)
    /// that were not taken before, in order. Each is taken once; [`finish`](Self::finish)
    /// still gives every call.
    ///
    /// ```
    /// use serde_json::json;
    /// use toolwire::provider::gemini::CallAccumulator;
    ///
    /// let chunk = |call| json!({"candidates": [{"content": {"parts": [{"functionCall": call}]}}]});
    /// let mut calls = CallAccumulator::default();
    /// calls.push(&chunk(json!({"name": "get_weather", "willContinue": true})));
    /// assert!(calls.take_ready().is_empty());
    /// calls.push(&chunk(json!({"partialArgs": [{"jsonPath": "$.city", "stringValue": "Oslo"}]})));
    /// assert_eq!(calls.take_ready()[0].arguments, json!({"city": "Oslo"}));
    /// assert!(calls.take_ready().is_empty());
    /// ```
    pub fn take_ready(&mut self) -> Vec<ToolCall> {
        let complete = self.calls.len() - usize::from(self.open && !self.calls.is_empty());
        let mut ready = Vec::new();
        for building in self.calls.iter_mut().take(complete).filter(|b| !b.taken) {
            building.taken = true;
            ready.push(building.clone().finish());
        }
        ready
    }

    /// The assembled calls, in order. A call cut off before its last part, without a name,
    /// or with arguments that cannot be placed, fails alone, saying so.
    pub fn finish(mut self) -> Vec<ToolCall> {
        self.close();
        self.calls.into_iter().map(Building::finish).collect()
    }

    /// Ends the stream: a last call still saying more would follow is complete, failing as
    /// cut off, and [`take_ready`](Self::take_ready) hands it out.
    pub(in crate::provider) fn close(&mut self) {
        if let Some(last) = self.calls.last_mut().filter(|_| self.open) {
            last.broken
                .get_or_insert_with(|| "the call was cut off: its last part never came".into());
        }
        self.open = false;
    }

    /// The calls whose last part came, taken or not, in order: what a stream that was cut off
    /// made.
    pub(in crate::provider) fn complete(mut self) -> Vec<ToolCall> {
        if self.open {
            self.calls.pop();
        }
        self.calls.into_iter().map(Building::finish).collect()
    }
}

impl Building {
    /// A call with no part yet, under an id of its own.
    fn new() -> Self {
        let id = new_call_id();
        Self {
            id,
            given_id: false,
            name: String::new(),
            args: Value::Null,
            broken: None,
            continuing: None,
            taken: false,
        }
    }

    /// Takes Gemini's `id` for the call, the first one it sends.
    fn keep_id(&mut self, id: Option<&str>) {
        if let Some(id) = id.filter(|id| !id.is_empty() && !self.given_id) {
            self.id = id.to_owned();
            self.given_id = true;
        }
    }

    /// Merges whole `args` into the arguments so far.
    fn merge_args(&mut self, args: Option<&Value>) {
        match args {
            None | Some(Value::Null) => {}
            // The first whole arguments are the arguments: nothing to merge them with.
            Some(args @ Value::Object(_)) if self.args.is_null() => self.args = args.clone(),
            Some(Value::Object(map)) => {
                for (key, value) in map {
                    self.set(&format!("$[{}]", quoted(key)), value.clone(), false);
                }
            }
            Some(_) => self.break_with("the arguments must be a JSON object".into()),
        }
    }

    /// Places one `PartialArg`.
    fn apply(&mut self, partial: &Value) {
        let Some(path) = stream::text(partial, "jsonPath") else {
            return self.break_with("a partial argument has no jsonPath".into());
        };
        let value =
            ["stringValue", "numberValue", "boolValue"].iter().find_map(|key| partial.get(*key));
        let value = value.cloned().or_else(|| partial.get("nullValue").map(|_| Value::Null));
        if let Some(value) = value {
            let append = value.is_string() && self.continuing.as_deref() == Some(path);
            self.set(path, value, append);
        }
        let continues = partial.get("willContinue").and_then(Value::as_bool) == Some(true);
        self.continuing = continues.then(|| path.to_owned());
    }

    fn set(&mut self, path: &str, value: Value, append: bool) {
        if let Err(why) = path::set(&mut self.args, path, value, append) {
            self.break_with(why);
        }
    }

    fn break_with(&mut self, why: String) {
        self.broken.get_or_insert(why);
    }

    fn finish(self) -> ToolCall {
        match self.broken {
            _ if self.name.is_empty() => {
                malformed(&self.id, "", "the call was cut off: no tool name was streamed for it")
            }
            Some(why) => malformed(&self.id, &self.name, why),
            None => ToolCall::new(self.id, self.name, self.args),
        }
    }
}

/// `key` as a single-quoted JSON path member name.
fn quoted(key: &str) -> String {
    format!("'{}'", key.replace('\\', "\\\\").replace('\'', "\\'"))
}
