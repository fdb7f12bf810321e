//! [`ModelClient`]: one turn of a model, and the HTTP client for every provider a model is
//! reached by.
//!
//! A client takes the conversation so far, in its provider's wire messages, and the tool
//! definitions, and returns the model's turn ([`ModelTurn`], the core's record): the
//! assistant's wire messages to append, the calls it made, and its text. Each provider's wire
//! format is the core's ([`toolwire::provider::ModelApi`]); the HTTP client here keeps the
//! transport: the URL, the headers, retries and server-sent events. While a reply streams in, the client tells a [`TurnSink`]
//! about each piece of text and about each call the moment its arguments are complete, so
//! the agent can start that call while the model is still writing the next one.

mod builder;
mod http;
mod retry;
mod settings;
mod spec;
mod sse;

use std::future::Future;
use std::pin::Pin;

use serde_json::Value;
use toolwire::{AbortSignal, Provider, ToolCall};

use crate::Error;

pub use builder::HttpClientBuilder;
pub use http::HttpClient;
pub use retry::RetryPolicy;
pub use spec::parse_provider;
pub use toolwire::provider::{Finish, ModelTurn, Usage};

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
///
/// ```
/// use serde_json::json;
/// use toolwire::AbortSignal;
/// use toolwire_agent::ModelRequest;
///
/// let messages = [json!({"role": "user", "content": "Hello"})];
/// let signal = AbortSignal::default();
/// let request = ModelRequest::new(&messages, &signal).with_system("Be brief.");
/// assert_eq!(request.system, Some("Be brief."));
/// ```
#[non_exhaustive]
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

impl<'a> ModelRequest<'a> {
    /// A turn over `messages`, aborted when `signal` fires, with no system prompt or tools.
    pub fn new(messages: &'a [Value], signal: &'a AbortSignal) -> Self {
        Self { system: None, messages, tools: &[], signal }
    }

    /// The same request with the system prompt `system`.
    #[must_use]
    pub fn with_system(mut self, system: &'a str) -> Self {
        self.system = Some(system);
        self
    }

    /// The same request offering `tools`, in the provider's shape.
    #[must_use]
    pub fn with_tools(mut self, tools: &'a [Value]) -> Self {
        self.tools = tools;
        self
    }
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
