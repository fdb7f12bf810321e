//! What an [`HttpClient`](super::HttpClient) is set up with: the builder makes it, the
//! client reads it.

use std::time::Duration;

use serde_json::{Map, Value};
use toolwire::provider::ModelApi;

use super::retry::RetryPolicy;

/// What a request's body is built from besides the conversation.
#[derive(Debug, Clone)]
pub(super) struct Target {
    pub(super) model: String,
    pub(super) max_tokens: Option<u32>,
    /// More top-level fields, such as `temperature`.
    pub(super) extra: Map<String, Value>,
}

/// A built client's settings.
pub(super) struct Settings {
    /// The provider's wire format.
    pub(super) api: ModelApi,
    pub(super) target: Target,
    /// Without a trailing `/`.
    pub(super) base_url: String,
    pub(super) api_key: Option<String>,
    pub(super) http: reqwest::Client,
    pub(super) timeout: Duration,
    pub(super) idle_timeout: Duration,
    pub(super) retry: RetryPolicy,
    pub(super) stream: bool,
}

impl Settings {
    /// The URL a turn's request goes to.
    pub(super) fn url(&self) -> String {
        format!("{}{}", self.base_url, self.api.endpoint(&self.target.model, self.stream))
    }

    /// Names the request in messages: `{provider} request to {base URL}`.
    pub(super) fn what(&self) -> String {
        format!("{} request to {}", self.api.provider(), self.base_url)
    }
}
