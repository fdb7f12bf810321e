//! [`TurnRequest`]: what one turn of a model is asked, before any provider's shape.

use serde_json::Value;

/// What one turn of a model is asked: the model, the system prompt, the conversation so far
/// and the tool definitions, borrowed; [`ModelApi::body`](super::ModelApi::body) writes it in
/// a provider's request body.
///
/// ```
/// use serde_json::json;
/// use toolwire::Provider;
/// use toolwire::provider::TurnRequest;
///
/// let messages = [json!({"role": "user", "content": "Hello"})];
/// let request = TurnRequest::new("claude-sonnet-4-5", &messages).with_system("Be brief.");
/// let api = Provider::Anthropic.model_api().unwrap();
/// let body = api.body(&request);
/// assert_eq!(body["system"], "Be brief.");
/// assert_eq!(body["max_tokens"], 4096, "Messages requires one; this is the default");
/// ```
#[non_exhaustive]
#[derive(Debug, Clone, Copy)]
pub struct TurnRequest<'a> {
    /// The model's name, as the API takes it.
    pub model: &'a str,
    /// The system prompt, if any.
    pub system: Option<&'a str>,
    /// The conversation so far, in the provider's wire messages (or input items).
    pub messages: &'a [Value],
    /// The tool definitions in the provider's shape, as
    /// [`Registry::definitions`](crate::Registry::definitions) gives them.
    pub tools: &'a [Value],
    /// The most tokens the turn may write; `None` leaves it to the API (Anthropic, which
    /// requires it, then gets 4096).
    pub max_tokens: Option<u32>,
    /// Whether the reply is to be streamed.
    pub stream: bool,
}

impl<'a> TurnRequest<'a> {
    /// A streamed turn of `model` over `messages`, with no system prompt, tools or token limit.
    pub fn new(model: &'a str, messages: &'a [Value]) -> Self {
        Self { model, system: None, messages, tools: &[], max_tokens: None, stream: true }
    }

    /// The same request with the system prompt `system`.
    #[must_use]
    pub fn with_system(mut self, system: &'a str) -> Self {
        self.system = Some(system);
        self
    }

    /// The same request offering `tools`.
    #[must_use]
    pub fn with_tools(mut self, tools: &'a [Value]) -> Self {
        self.tools = tools;
        self
    }

    /// The same request, writing at most `max_tokens`.
    #[must_use]
    pub fn with_max_tokens(mut self, max_tokens: u32) -> Self {
        self.max_tokens = Some(max_tokens);
        self
    }

    /// The same request, streamed or not.
    #[must_use]
    pub fn streamed(mut self, stream: bool) -> Self {
        self.stream = stream;
        self
    }
}
