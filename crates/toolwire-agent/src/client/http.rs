//! [`HttpClient`]: a [`ModelClient`] over HTTP for any of the four providers.

use std::fmt;
use std::future::Future;
use std::sync::Arc;
use std::time::{Duration, SystemTime};

use serde_json::Value;
use toolwire::{AbortSignal, Provider, ToolCall};

use super::builder::HttpClientBuilder;
use super::retry::{RetryPolicy, server_wait};
use super::sse::{Events, aborted};
use super::wire::{self, Target};
use super::{BoxFuture, ModelClient, ModelRequest, ModelTurn, TurnSink};
use crate::history::{parse_provider, provider_name};
use crate::{Error, ErrorKind};

/// A model behind an HTTP API: OpenAI Chat Completions, OpenAI Responses, Anthropic
/// Messages or Gemini `generateContent`, at the provider's URL or any compatible server's.
///
/// Cloning it is cheap and shares its connection pool.
///
/// ```
/// use std::time::Duration;
/// use toolwire::Provider;
/// use toolwire_agent::{HttpClient, ModelClient};
///
/// // Any OpenAI-compatible server (vLLM, llama.cpp, Ollama, a proxy) is one base URL away.
/// let client = HttpClient::builder(Provider::OpenAi, "qwen3")
///     .base_url("http://127.0.0.1:8000/v1")
///     .timeout(Duration::from_secs(30))
///     .build()?;
/// assert_eq!(client.model(), "qwen3");
///
/// let client = HttpClient::from_spec("anthropic:claude-sonnet-4-5")?.api_key("sk-...").build()?;
/// assert_eq!(client.provider(), Provider::Anthropic);
/// # Ok::<(), toolwire_agent::Error>(())
/// ```
#[derive(Clone)]
pub struct HttpClient {
    inner: Arc<Settings>,
}

pub(super) struct Settings {
    pub(super) provider: Provider,
    pub(super) target: Target,
    pub(super) base_url: String,
    pub(super) api_key: Option<String>,
    pub(super) http: reqwest::Client,
    pub(super) timeout: Duration,
    pub(super) idle_timeout: Duration,
    pub(super) retry: RetryPolicy,
    pub(super) stream: bool,
}

impl HttpClient {
    pub(super) fn from_settings(settings: Settings) -> Self {
        Self { inner: Arc::new(settings) }
    }

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

    /// The default base URL of `provider`'s API.
    pub fn default_base_url(provider: Provider) -> &'static str {
        match provider {
            Provider::Anthropic => "https://api.anthropic.com/v1",
            Provider::Gemini => "https://generativelanguage.googleapis.com/v1beta",
            _ => "https://api.openai.com/v1",
        }
    }

    /// The URL requests go to.
    pub fn url(&self) -> String {
        let s = &self.inner;
        wire::url(s.provider, &s.base_url, &s.target.model, s.stream)
    }
}

/// Why one attempt failed, and whether another may follow.
pub(super) struct Failed {
    pub(super) error: Error,
    pub(super) retry: bool,
}

impl ModelClient for HttpClient {
    fn provider(&self) -> Provider {
        self.inner.provider
    }

    fn model(&self) -> &str {
        &self.inner.target.model
    }

    fn complete<'a>(
        &'a self,
        request: ModelRequest<'a>,
        sink: &'a mut dyn TurnSink,
    ) -> BoxFuture<'a, Result<ModelTurn, Error>> {
        Box::pin(self.inner.complete(request, sink))
    }
}

impl Settings {
    fn what(&self) -> String {
        format!("{} request to {}", provider_name(self.provider), self.base_url)
    }

    async fn complete(
        &self,
        request: ModelRequest<'_>,
        sink: &mut dyn TurnSink,
    ) -> Result<ModelTurn, Error> {
        let body = wire::body(self.provider, &self.target, &request, self.stream);
        let url = wire::url(self.provider, &self.base_url, &self.target.model, self.stream);
        let mut attempt = 0;
        loop {
            let mut counted = Counted { sink: &mut *sink, heard: false };
            let failed = match self.attempt(&url, &body, request.signal, &mut counted).await {
                Ok(turn) => return Ok(turn),
                Err(failed) => failed,
            };
            if !failed.retry || counted.heard || attempt >= self.retry.max_retries {
                return Err(failed.error);
            }
            let wait = failed.error.retry_after().unwrap_or_else(|| self.retry.backoff(attempt));
            if wait > self.retry.max_server_wait {
                let message = format!(
                    "{}: the server asked to wait {wait:?}, longer than the retry policy allows",
                    self.what()
                );
                return Err(
                    Error::new(ErrorKind::RateLimited, message).with_retry_after(Some(wait))
                );
            }
            tracing::debug!(attempt, ?wait, error = %failed.error, "retrying a model request");
            tokio::select! {
                () = request.signal.aborted() => return Err(aborted(request.signal, &self.what())),
                () = tokio::time::sleep(wait) => {}
            }
            attempt += 1;
        }
    }

    async fn attempt(
        &self,
        url: &str,
        body: &Value,
        signal: &AbortSignal,
        sink: &mut dyn TurnSink,
    ) -> Result<ModelTurn, Failed> {
        let response = self.send(url, body, signal).await?;
        // Some compatible servers ignore `"stream": true` and answer with one JSON body.
        if !self.stream || !is_event_stream(&response) {
            let reply = self.within(signal, response.json::<Value>()).await?;
            let reply = reply.map_err(|cause| {
                fail(
                    ErrorKind::InvalidReply,
                    format!("{}: the reply is not JSON: {cause}", self.what()),
                    false,
                )
            })?;
            let turn = wire::reply(self.provider, &reply)
                .map_err(|error| Failed { error, retry: false })?;
            report(&turn, sink);
            return Ok(turn);
        }
        let mut events = Events::new(response, self.idle_timeout, self.what());
        let mut decoder = wire::decoder(self.provider);
        let mut any = false;
        loop {
            let event = events.next(signal).await.map_err(|error| {
                let retry =
                    !any && matches!(error.kind(), ErrorKind::StreamCut | ErrorKind::Timeout);
                Failed { error, retry }
            })?;
            let Some(event) = event else { break };
            let Some(data) = event.data.as_deref() else { continue };
            any = true;
            decoder.event(data, sink).map_err(|error| Failed { error, retry: false })?;
        }
        decoder.finish(sink).map_err(|error| {
            let retry = error.kind() == ErrorKind::StreamCut;
            Failed { error, retry }
        })
    }

    /// Sends the request and waits for the reply's headers; an error status is a failure.
    async fn send(
        &self,
        url: &str,
        body: &Value,
        signal: &AbortSignal,
    ) -> Result<reqwest::Response, Failed> {
        let request =
            wire::headers(self.provider, self.http.post(url).json(body), self.api_key.as_deref());
        let response = self.within(signal, request.send()).await?.map_err(|cause| {
            let retry = cause.is_connect() || cause.is_timeout() || cause.is_request();
            let message = format!("{}: cannot send: {cause}", self.what());
            Failed { error: Error::new(ErrorKind::Transport, message).with_source(cause), retry }
        })?;
        let status = response.status().as_u16();
        if response.status().is_success() {
            return Ok(response);
        }
        let wait = server_wait(response.headers(), SystemTime::now());
        let detail = self
            .within(signal, response.text())
            .await
            .ok()
            .and_then(Result::ok)
            .unwrap_or_default();
        let detail: String = detail.chars().take(300).collect();
        let kind = if status == 429 { ErrorKind::RateLimited } else { ErrorKind::Status };
        let message = format!("{}: the server answered {status}: {detail}", self.what());
        let error = Error::new(kind, message).with_status(status).with_retry_after(wait);
        Err(Failed { error, retry: RetryPolicy::retries_status(status) })
    }

    /// Runs `work` under the request time limit and `signal`.
    async fn within<T>(
        &self,
        signal: &AbortSignal,
        work: impl Future<Output = T>,
    ) -> Result<T, Failed> {
        tokio::select! {
            biased;
            () = signal.aborted() => Err(Failed { error: aborted(signal, &self.what()), retry: false }),
            done = tokio::time::timeout(self.timeout, work) => done.map_err(|_| {
                fail(ErrorKind::Timeout, format!("{}: no reply within {:?}", self.what(), self.timeout), true)
            }),
        }
    }
}

fn fail(kind: ErrorKind, message: String, retry: bool) -> Failed {
    Failed { error: Error::new(kind, message), retry }
}

/// Whether the reply is server-sent events.
fn is_event_stream(response: &reqwest::Response) -> bool {
    let kind = response.headers().get(reqwest::header::CONTENT_TYPE);
    kind.and_then(|kind| kind.to_str().ok())
        .is_some_and(|kind| kind.trim_start().starts_with("text/event-stream"))
}

/// Tells `sink` about an unstreamed turn, as a stream would have.
fn report(turn: &ModelTurn, sink: &mut dyn TurnSink) {
    if !turn.text.is_empty() {
        sink.text(&turn.text);
    }
    turn.calls.iter().for_each(|call| sink.call(call));
}

/// A sink that notes whether it heard anything, so a turn that reached the caller is never
/// sent again.
struct Counted<'a> {
    sink: &'a mut dyn TurnSink,
    heard: bool,
}

impl TurnSink for Counted<'_> {
    fn text(&mut self, delta: &str) {
        self.heard = true;
        self.sink.text(delta);
    }

    fn call(&mut self, call: &ToolCall) {
        self.heard = true;
        self.sink.call(call);
    }
}

impl fmt::Debug for HttpClient {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let s = &self.inner;
        f.debug_struct("HttpClient")
            .field("provider", &provider_name(s.provider))
            .field("model", &s.target.model)
            .field("base_url", &s.base_url)
            .field("stream", &s.stream)
            .finish_non_exhaustive()
    }
}
