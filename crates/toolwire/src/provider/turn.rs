//! [`ModelTurn`]: one turn of a model, read from any provider's reply or stream.

use std::fmt;

use serde_json::Value;

use crate::record::ToolCall;

/// One turn of a model, as a provider's reply or stream gave it: the messages to append to
/// the conversation, the calls it made, its text and its thinking, why it stopped, and the
/// tokens it used.
///
/// [`ModelApi::read_reply`](super::ModelApi::read_reply) reads one from a whole reply, and a
/// [`TurnDecoder`](super::TurnDecoder) from a stream. A host that talks to a model in its own
/// way builds one with [`new`](Self::new) and the `with_*` methods:
///
/// ```
/// use serde_json::json;
/// use toolwire::ToolCall;
/// use toolwire::provider::{Finish, ModelTurn, Usage};
///
/// let call = ToolCall::new("call_1", "get_weather", json!({"city": "Oslo"}));
/// let turn = ModelTurn::new(vec![json!({"role": "assistant"})], vec![call])
///     .with_text("Checking.")
///     .with_usage(Usage::new(Some(120), Some(14)));
/// assert_eq!(turn.finish, Finish::ToolCalls);
/// assert_eq!(turn.usage.output_tokens, Some(14));
/// ```
#[non_exhaustive]
#[derive(Debug, Clone, PartialEq)]
pub struct ModelTurn {
    /// The assistant's wire messages (or Responses output items) to append to the
    /// conversation, as the provider sent them.
    pub assistant: Vec<Value>,
    /// The calls it made, in order.
    pub calls: Vec<ToolCall>,
    /// Its text, joined.
    pub text: String,
    /// The thinking it showed (Anthropic's thinking blocks, Gemini's thought parts, the
    /// reasoning of OpenAI-compatible servers), joined; empty when it showed none. The
    /// assistant messages keep it as the provider needs it back.
    pub thinking: String,
    /// Why the model stopped.
    pub finish: Finish,
    /// The tokens it used, as the provider reported them.
    pub usage: Usage,
}

impl ModelTurn {
    /// A turn that appended `assistant` and made `calls`, with no text, no thinking and no
    /// token counts; it finished with [`Finish::ToolCalls`] when it made calls, else
    /// [`Finish::Stop`].
    pub fn new(assistant: Vec<Value>, calls: Vec<ToolCall>) -> Self {
        let finish = if calls.is_empty() { Finish::Stop } else { Finish::ToolCalls };
        Self {
            assistant,
            calls,
            text: String::new(),
            thinking: String::new(),
            finish,
            usage: Usage::default(),
        }
    }

    /// The same turn, saying `text`.
    #[must_use]
    pub fn with_text(mut self, text: impl Into<String>) -> Self {
        self.text = text.into();
        self
    }

    /// The same turn, having shown `thinking`.
    #[must_use]
    pub fn with_thinking(mut self, thinking: impl Into<String>) -> Self {
        self.thinking = thinking.into();
        self
    }

    /// The same turn, stopped for `finish`.
    #[must_use]
    pub fn with_finish(mut self, finish: Finish) -> Self {
        self.finish = finish;
        self
    }

    /// The same turn, having used `usage`.
    #[must_use]
    pub fn with_usage(mut self, usage: Usage) -> Self {
        self.usage = usage;
        self
    }
}

/// The tokens one turn used, as the provider reported them; a count the provider did not
/// give is `None`.
#[non_exhaustive]
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Usage {
    /// The tokens of the request: the prompt, the history and the tool definitions
    /// (`prompt_tokens`, `input_tokens`, `promptTokenCount`).
    pub input_tokens: Option<u64>,
    /// The tokens the model wrote (`completion_tokens`, `output_tokens`,
    /// `candidatesTokenCount`).
    pub output_tokens: Option<u64>,
}

impl Usage {
    /// The counts `input_tokens` and `output_tokens`.
    pub fn new(input_tokens: Option<u64>, output_tokens: Option<u64>) -> Self {
        Self { input_tokens, output_tokens }
    }

    /// These counts, with each count `later` gives in their place (a stream's later events
    /// restate the totals so far).
    #[must_use]
    pub fn updated(self, later: Usage) -> Usage {
        Usage {
            input_tokens: later.input_tokens.or(self.input_tokens),
            output_tokens: later.output_tokens.or(self.output_tokens),
        }
    }

    /// The counts at the JSON pointers `input` and `output` of `value`, where present.
    pub(super) fn at(value: &Value, input: &str, output: &str) -> Usage {
        Usage {
            input_tokens: value.pointer(input).and_then(Value::as_u64),
            output_tokens: value.pointer(output).and_then(Value::as_u64),
        }
    }
}

/// Why a model ended its turn.
#[non_exhaustive]
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Finish {
    /// It finished its answer (`stop`, `end_turn`, `STOP`, `completed`).
    Stop,
    /// It stopped to have its calls run.
    ToolCalls,
    /// It ran out of output tokens.
    Length,
    /// Any other reason, as the provider named it.
    Other(String),
}

impl Finish {
    /// The reason in the OpenTelemetry GenAI conventions' words (`stop`, `tool_calls`,
    /// `length`), or the provider's own.
    pub fn as_str(&self) -> &str {
        match self {
            Finish::Stop => "stop",
            Finish::ToolCalls => "tool_calls",
            Finish::Length => "length",
            Finish::Other(other) => other,
        }
    }

    /// `reason` as a finish, given how a provider names its reasons.
    pub(super) fn named(reason: &str, stop: &[&str], tools: &[&str], length: &[&str]) -> Finish {
        if stop.contains(&reason) {
            Finish::Stop
        } else if tools.contains(&reason) {
            Finish::ToolCalls
        } else if length.contains(&reason) {
            Finish::Length
        } else {
            Finish::Other(reason.to_owned())
        }
    }

    /// This reason, or [`ToolCalls`](Finish::ToolCalls) for a [`Stop`](Finish::Stop) of a turn
    /// that made calls (Gemini says `STOP` either way).
    pub(super) fn given_calls(self, calls: &[ToolCall]) -> Finish {
        match self {
            Finish::Stop if !calls.is_empty() => Finish::ToolCalls,
            other => other,
        }
    }
}

impl fmt::Display for Finish {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Finish::Stop => f.write_str("stop"),
            Finish::ToolCalls => f.write_str("tool calls"),
            Finish::Length => f.write_str("length"),
            Finish::Other(other) => f.write_str(other),
        }
    }
}
