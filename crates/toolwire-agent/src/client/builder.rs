//! [`HttpClientBuilder`]: the settings of an [`HttpClient`].

use std::fmt;
use std::time::Duration;

use serde_json::{Map, Value};
use toolwire::Provider;

use super::http::HttpClient;
use super::retry::RetryPolicy;
use super::settings::{Settings, Target};
use super::spec::{model_providers, parse_provider};
use crate::{Error, ErrorKind};

impl HttpClient {
    /// Starts a client of `model` at `provider`.
    pub fn builder(provider: Provider, model: impl Into<String>) -> HttpClientBuilder {
        HttpClientBuilder::new(provider, model.into())
    }

    /// Starts a client from `PROVIDER:MODEL`, such as `openai:gpt-4.1`,
    /// `responses:o4-mini`, `anthropic:claude-sonnet-4-5` or `gemini:gemini-2.5-flash`.
    ///
    /// # Errors
    ///
    /// A [`Config`](ErrorKind::Config) error when the provider is unknown or the model empty.
    pub fn from_spec(spec: &str) -> Result<HttpClientBuilder, Error> {
        let Some((provider, model)) = spec.split_once(':').filter(|(_, m)| !m.trim().is_empty())
        else {
            let message =
                format!("model spec {spec:?} is not PROVIDER:MODEL (for example openai:gpt-4.1)");
            return Err(Error::new(ErrorKind::Config, message));
        };
        Ok(Self::builder(parse_provider(provider)?, model.trim()))
    }
}

/// Sets up an [`HttpClient`]; made by [`HttpClient::builder`] or [`HttpClient::from_spec`].
#[must_use = "a builder does nothing until built"]
pub struct HttpClientBuilder {
    provider: Provider,
    target: Target,
    base_url: Option<String>,
    api_key: Option<String>,
    timeout: Duration,
    connect_timeout: Duration,
    idle_timeout: Duration,
    retry: RetryPolicy,
    stream: bool,
}

impl HttpClientBuilder {
    fn new(provider: Provider, model: String) -> Self {
        let target = Target { model, max_tokens: None, extra: Map::new() };
        Self {
            provider,
            target,
            base_url: None,
            api_key: None,
            timeout: Duration::from_secs(120),
            connect_timeout: Duration::from_secs(10),
            idle_timeout: Duration::from_secs(60),
            retry: RetryPolicy::default(),
            stream: true,
        }
    }

    /// Sends requests to `url` instead of the provider's own API, for example
    /// `http://127.0.0.1:8000/v1` for an OpenAI-compatible server. It is the part before
    /// `/chat/completions`, `/responses`, `/messages` or `/models/...`.
    pub fn base_url(mut self, url: impl Into<String>) -> Self {
        self.base_url = Some(url.into());
        self
    }

    /// Authenticates with `key`: a bearer token for OpenAI, `x-api-key` for Anthropic,
    /// `x-goog-api-key` for Gemini.
    pub fn api_key(mut self, key: impl Into<String>) -> Self {
        self.api_key = Some(key.into());
        self
    }

    /// Reads the key from the provider's usual environment variable, when it is set:
    /// `OPENAI_API_KEY`, `ANTHROPIC_API_KEY`, or `GEMINI_API_KEY` (then `GOOGLE_API_KEY`);
    /// see [`ModelApi::key_variables`](toolwire::provider::ModelApi::key_variables).
    pub fn api_key_from_env(mut self) -> Self {
        let names = self.provider.model_api().map(|api| api.key_variables()).unwrap_or_default();
        self.api_key = names.iter().find_map(|name| std::env::var(name).ok()).or(self.api_key);
        self
    }

    /// The longest wait for a reply's headers, and for a whole unstreamed reply. Default: 120 s.
    pub fn timeout(mut self, timeout: Duration) -> Self {
        self.timeout = timeout;
        self
    }

    /// The longest wait to connect. Default: 10 s.
    pub fn connect_timeout(mut self, timeout: Duration) -> Self {
        self.connect_timeout = timeout;
        self
    }

    /// The longest a stream may go without an event. Default: 60 s.
    pub fn idle_timeout(mut self, timeout: Duration) -> Self {
        self.idle_timeout = timeout;
        self
    }

    /// How failed requests are retried. Default: [`RetryPolicy::default`].
    pub fn retry(mut self, retry: RetryPolicy) -> Self {
        self.retry = retry;
        self
    }

    /// Whether replies are streamed (the default), so calls can start while the model is
    /// still writing.
    pub fn stream(mut self, stream: bool) -> Self {
        self.stream = stream;
        self
    }

    /// Caps the reply's tokens (Anthropic requires a cap: 4096 unless set).
    pub fn max_tokens(mut self, max: u32) -> Self {
        self.target.max_tokens = Some(max);
        self
    }

    /// Adds a top-level field to every request body, such as `temperature`.
    pub fn body_field(mut self, key: impl Into<String>, value: Value) -> Self {
        self.target.extra.insert(key.into(), value);
        self
    }

    /// Builds the client.
    ///
    /// # Errors
    ///
    /// A [`Config`](ErrorKind::Config) error when the provider runs no model (`mcp`,
    /// `flat_function`), the base URL is not an `http` or `https` URL, or the HTTP client
    /// cannot be set up.
    pub fn build(self) -> Result<HttpClient, Error> {
        let Some(api) = self.provider.model_api() else {
            let message = format!(
                "provider {} describes tools but runs no model: expected {}",
                self.provider,
                model_providers()
            );
            return Err(Error::new(ErrorKind::Config, message));
        };
        let base = self.base_url.unwrap_or_else(|| api.default_base_url().to_owned());
        let base_url = base.trim().trim_end_matches('/').to_owned();
        if !(base_url.starts_with("http://") || base_url.starts_with("https://")) {
            let message = format!("base URL {base_url:?} is not an http:// or https:// URL");
            return Err(Error::new(ErrorKind::Config, message));
        }
        crate::install_tls_provider();
        let http = reqwest::Client::builder()
            .connect_timeout(self.connect_timeout)
            .tcp_nodelay(true)
            .build()
            .map_err(|cause| {
                Error::new(ErrorKind::Config, format!("cannot set up the HTTP client: {cause}"))
                    .with_source(cause)
            })?;
        let settings = Settings {
            api,
            target: self.target,
            base_url,
            api_key: self.api_key,
            http,
            timeout: self.timeout,
            idle_timeout: self.idle_timeout,
            retry: self.retry,
            stream: self.stream,
        };
        Ok(HttpClient::from_settings(settings))
    }
}

impl fmt::Debug for HttpClientBuilder {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("HttpClientBuilder")
            .field("provider", &self.provider)
            .field("model", &self.target.model)
            .field("base_url", &self.base_url)
            .finish_non_exhaustive()
    }
}
