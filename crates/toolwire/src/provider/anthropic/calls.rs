//! Anthropic Messages streaming: `tool_use` blocks assembled from server-sent events.

use std::collections::BTreeSet;

use serde_json::Value;

use crate::provider::Provider;
use crate::provider::parse::Reader;
use crate::provider::parse_error::{ParseError, ParseErrorKind};
use crate::provider::stream::{self, Partials};
use crate::record::ToolCall;

const READ: Reader = Reader { provider: Provider::Anthropic };

/// Assembles the `tool_use` blocks of a streamed Anthropic Messages reply from its events.
///
/// A `content_block_start` opens a block with its `id` and name; its
/// `input_json_delta.partial_json` fragments are joined, and parsed when the stream is
/// finished (see "Streaming Messages" in Anthropic's API docs). A block whose start carries a
/// whole, non-empty `input` and no fragments keeps that input, and `tool_use` blocks already in
/// `message_start`'s message are taken too.
///
/// Only `tool_use` blocks are the caller's to run. Server tools (`server_tool_use`, such as
/// web search, web fetch and code execution), their `*_tool_result` blocks and every other
/// block are the provider's own: their events, input deltas included, are skipped.
///
/// ```
/// use serde_json::json;
/// use toolwire::provider::anthropic::CallAccumulator;
///
/// let mut calls = CallAccumulator::default();
/// for event in [
///     json!({"type": "content_block_start", "index": 0, "content_block": {"type": "tool_use", "id": "toolu_1", "name": "get_weather", "input": {}}}),
///     json!({"type": "content_block_delta", "index": 0, "delta": {"type": "input_json_delta", "partial_json": "{\"city\": \"Oslo\"}"}}),
///     json!({"type": "content_block_stop", "index": 0}),
/// ] {
///     calls.push(&event);
/// }
/// assert_eq!(calls.finish().unwrap()[0].arguments, json!({"city": "Oslo"}));
/// ```
#[derive(Debug, Default, Clone)]
pub struct CallAccumulator {
    partials: Partials<u64>,
    /// The indexes of blocks that are not client tool calls.
    others: BTreeSet<u64>,
    /// The first problem found; [`finish`](Self::finish) returns it.
    error: Option<ParseError>,
}

impl CallAccumulator {
    /// Takes in one server-sent event's data; events about other blocks change nothing.
    pub fn push(&mut self, event: &Value) {
        if self.error.is_some() {
            return;
        }
        let taken = match stream::text(event, "type") {
            Some("message_start") => self.take_message(event),
            Some("content_block_start") => self.take_start(event),
            Some("content_block_delta") => {
                self.take_delta(event);
                Ok(())
            }
            Some("content_block_stop") => {
                self.take_stop(event);
                Ok(())
            }
            _ => Ok(()),
        };
        self.error = taken.err();
    }

    /// The `tool_use` blocks already in `message.content`.
    fn take_message(&mut self, event: &Value) -> Result<(), ParseError> {
        let message = event.get("message").unwrap_or(&Value::Null);
        for (index, block) in (0u64..).zip(READ.list(message, "/message", "content")?) {
            self.open(index, block, &format!("/message/content/{index}"))?;
            if let Some(partial) = self.partials.iter_mut().find(|(at, _)| **at == index) {
                partial.1.ready = true; // a block in the message is whole
            }
        }
        Ok(())
    }

    fn take_start(&mut self, event: &Value) -> Result<(), ParseError> {
        let Some(index) = stream::index(event, "index") else { return Ok(()) };
        let block = event.get("content_block").unwrap_or(&Value::Null);
        self.open(index, block, "/content_block")
    }

    /// Opens the block at `index`, found at pointer `at` of the event. Starting a block where
    /// a `tool_use` block started, or a `tool_use` block where any block started, is an error:
    /// the input deltas of one would be spliced into the other.
    fn open(&mut self, index: u64, block: &Value, at: &str) -> Result<(), ParseError> {
        let is_tool = stream::text(block, "type") == Some("tool_use");
        let was_tool = self.partials.get(&index).is_some_and(|partial| partial.started);
        if was_tool || (is_tool && self.others.contains(&index)) {
            let problem = format!("content block {index} was started twice");
            return Err(ParseError::new(
                READ.provider,
                ParseErrorKind::DuplicateBlock,
                at,
                problem,
            ));
        }
        if !is_tool {
            self.others.insert(index);
            return Ok(());
        }
        let id = READ.string(block, at, "id")?;
        let name = READ.string(block, at, "name")?;
        let partial = self.partials.at(index);
        partial.started = true;
        partial.keep_id(Some(id));
        partial.keep_name(Some(name));
        partial.input = block.get("input").filter(|input| !is_empty_input(input)).cloned();
        Ok(())
    }

    fn take_delta(&mut self, event: &Value) {
        let Some(index) = stream::index(event, "index") else { return };
        let delta = event.get("delta").unwrap_or(&Value::Null);
        if stream::text(delta, "type") != Some("input_json_delta") || self.others.contains(&index) {
            return;
        }
        let fragment = stream::text(delta, "partial_json").unwrap_or_default();
        self.partials.at(index).arguments.push_str(fragment);
    }

    /// Marks the block a `content_block_stop` ends as complete.
    fn take_stop(&mut self, event: &Value) {
        let Some(index) = stream::index(event, "index") else { return };
        if let Some(partial) = self.partials.iter_mut().find(|(at, _)| **at == index) {
            partial.1.ready = true;
        }
    }

    /// The `tool_use` blocks that have stopped (or came whole in `message_start`) and were
    /// not taken before, in block order. Each is taken once; [`finish`](Self::finish) still
    /// gives every call. After an error, none.
    ///
    /// ```
    /// use serde_json::json;
    /// use toolwire::provider::anthropic::CallAccumulator;
    ///
    /// let mut calls = CallAccumulator::default();
    /// calls.push(&json!({"type": "content_block_start", "index": 0, "content_block": {"type": "tool_use", "id": "toolu_1", "name": "f", "input": {}}}));
    /// assert!(calls.take_ready().is_empty());
    /// calls.push(&json!({"type": "content_block_stop", "index": 0}));
    /// assert_eq!(calls.take_ready()[0].call_id, "toolu_1");
    /// assert!(calls.take_ready().is_empty());
    /// ```
    pub fn take_ready(&mut self) -> Vec<ToolCall> {
        if self.error.is_some() {
            return Vec::new();
        }
        self.partials.take_ready(false).into_iter().map(|(_, call)| call).collect()
    }

    /// The assembled calls, in block order. A block that received input but never started
    /// fails alone, saying so.
    ///
    /// # Errors
    ///
    /// A [`ParseError`] when a block was started twice at one index, or a `tool_use` block
    /// lacks its `id` or name; its path points into the event that showed it.
    pub fn finish(self) -> Result<Vec<ToolCall>, ParseError> {
        match self.error {
            Some(error) => Err(error),
            None => Ok(self.partials.finish(false).map(|(_, call)| call).collect()),
        }
    }
}

/// Whether a start's `input` says nothing: absent fragments then mean no arguments.
fn is_empty_input(input: &Value) -> bool {
    input.is_null() || input.as_object().is_some_and(|map| map.is_empty())
}
