//! [`ModelClient`]: one turn of a model, and the HTTP clients for the four providers.
//!
//! A client takes the conversation so far, in its provider's wire messages, and the tool
//! definitions, and returns the model's turn: the assistant's wire messages to append, the
//! calls it made, and its text. While a reply streams in, the client tells a [`TurnSink`]
//! about each piece of text and about each call the moment its arguments are complete, so
//! the agent can start that call while the model is still writing the next one.

mod builder;
mod http;
mod retry;
mod sse;
mod wire;

use std::fmt;
use std::future::Future;
use std::pin::Pin;

use serde_json::Value;
use toolwire::{AbortSignal, Provider, ToolCall};

use crate::Error;

pub use builder::HttpClientBuilder;
pub use http::HttpClient;
pub use retry::RetryPolicy;

/// A boxed future, as [`ModelClient::complete`] returns.
pub type BoxFuture<'a, T> = Pin<Box<dyn Future<Output = T> + Send + 'a>>;

/// A model behind some API: the agent loop's only view of it.
///
/// The trait is object safe; an agent holds its client as `Arc<dyn ModelClient>`.
pub trait ModelClient: Send + Sync {
    /// The wire format of the messages this client takes and returns.
    fn provider(&self) -> Provider;

    /// The model's name, as given to the API.
    fn model(&self) -> &str;

    /// Runs one turn of the model over `request`, reporting text and finished calls to
    /// `sink` as they arrive.
    ///
    /// # Cancel safety
    ///
    /// Dropping the future drops the request; nothing is left running. The request's
    /// signal aborts it too, with an [`Aborted`](crate::ErrorKind::Aborted) error.
    fn complete<'a>(
        &'a self,
        request: ModelRequest<'a>,
        sink: &'a mut dyn TurnSink,
    ) -> BoxFuture<'a, Result<ModelTurn, Error>>;
}

/// What a model is asked, borrowed from the agent for one turn.
#[derive(Debug, Clone, Copy)]
pub struct ModelRequest<'a> {
    /// The system prompt, if any.
    pub system: Option<&'a str>,
    /// The conversation so far, in the provider's wire messages (or input items).
    pub messages: &'a [Value],
    /// The tool definitions in the provider's shape, as
    /// [`Registry::definitions`](toolwire::Registry::definitions) gives them.
    pub tools: &'a [Value],
    /// Aborts the turn when it fires.
    pub signal: &'a AbortSignal,
}

/// Hears a turn as it streams in.
pub trait TurnSink: Send {
    /// A piece of the assistant's text.
    fn text(&mut self, delta: &str);

    /// A call whose arguments are complete; each call of the turn is reported once, in
    /// order, before the turn returns.
    fn call(&mut self, call: &ToolCall);
}

/// A [`TurnSink`] that ignores everything.
#[derive(Debug, Default, Clone, Copy)]
pub struct IgnoreTurn;

impl TurnSink for IgnoreTurn {
    fn text(&mut self, _delta: &str) {}
    fn call(&mut self, _call: &ToolCall) {}
}

/// One turn of a model.
#[derive(Debug, Clone, PartialEq)]
pub struct ModelTurn {
    /// The assistant's wire messages (or Responses output items) to append to the
    /// conversation, as the provider sent them.
    pub assistant: Vec<Value>,
    /// The calls it made, in order.
    pub calls: Vec<ToolCall>,
    /// Its text, joined.
    pub text: String,
    /// Why the model stopped.
    pub finish: Finish,
    /// The tokens it used, as the provider reported them.
    pub usage: Usage,
}

/// The tokens one turn used, as the provider reported them; a count the provider did not
/// give is `None`.
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
    /// These counts, with each count `later` gives in their place (a stream's later events
    /// restate the totals so far).
    pub fn updated(self, later: Usage) -> Usage {
        Usage {
            input_tokens: later.input_tokens.or(self.input_tokens),
            output_tokens: later.output_tokens.or(self.output_tokens),
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
