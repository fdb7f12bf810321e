//! [`HttpClient`]: a [`ModelClient`] over HTTP for any of the four providers.

use std::fmt;
use std::future::Future;
use std::sync::Arc;
use std::time::SystemTime;

use serde_json::Value;
use toolwire::provider::{DecodeError, DecodeErrorKind, TurnRequest};
use toolwire::{AbortSignal, Provider, ToolCall};

use super::retry::{RetryPolicy, server_wait};
use super::settings::Settings;
use super::sse::{Events, aborted};
use super::{BoxFuture, ModelClient, ModelRequest, ModelTurn, TurnSink};
use crate::{Error, ErrorKind};

/// A model behind an HTTP API: OpenAI Chat Completions, OpenAI Responses, Anthropic
/// Messages or Gemini `generateContent`, at the provider's URL or any compatible server's.
///
/// It keeps the transport (the URL, the headers, retries, server-sent events, time limits);
/// what goes in a request and how a reply reads is the provider's
/// [`ModelApi`](toolwire::provider::ModelApi).
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

impl HttpClient {
    pub(super) fn from_settings(settings: Settings) -> Self {
        Self { inner: Arc::new(settings) }
    }

    /// The URL requests go to.
    pub fn url(&self) -> String {
        self.inner.url()
    }
}

/// Why one attempt failed, and whether another may follow.
pub(super) struct Failed {
    pub(super) error: Error,
    pub(super) retry: bool,
}

impl ModelClient for HttpClient {
    fn provider(&self) -> Provider {
        self.inner.api.provider()
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
    async fn complete(
        &self,
        request: ModelRequest<'_>,
        sink: &mut dyn TurnSink,
    ) -> Result<ModelTurn, Error> {
        let body = self.body(&request);
        let url = self.url();
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
            let turn = self
                .api
                .read_reply(&reply)
                .map_err(|error| Failed { error: decode_error(error), retry: false })?;
            report(&turn, sink);
            return Ok(turn);
        }
        let mut events = Events::new(response, self.idle_timeout, self.what());
        let mut decoder = self.api.decoder();
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
            let pushed = decoder.push(data);
            tell(&mut decoder, sink);
            pushed.map_err(|error| Failed { error: decode_error(error), retry: false })?;
        }
        let ended = decoder.end();
        tell(&mut decoder, sink);
        ended.map_err(|error| {
            let retry = error.is_cut();
            Failed { error: decode_error(error), retry }
        })?;
        Ok(decoder.finish())
    }

    /// The request body: the provider's, with the fields set by
    /// [`body_field`](super::HttpClientBuilder::body_field) added at the top level.
    fn body(&self, request: &ModelRequest<'_>) -> Value {
        let mut turn = TurnRequest::new(&self.target.model, request.messages)
            .with_tools(request.tools)
            .streamed(self.stream);
        if let Some(system) = request.system {
            turn = turn.with_system(system);
        }
        if let Some(max) = self.target.max_tokens {
            turn = turn.with_max_tokens(max);
        }
        let mut body = self.api.body(&turn);
        if let Value::Object(map) = &mut body {
            map.extend(self.target.extra.iter().map(|(key, value)| (key.clone(), value.clone())));
        }
        body
    }

    /// Sends the request and waits for the reply's headers; an error status is a failure.
    async fn send(
        &self,
        url: &str,
        body: &Value,
        signal: &AbortSignal,
    ) -> Result<reqwest::Response, Failed> {
        let mut request = self.http.post(url).json(body);
        for (name, value) in self.api.headers(self.api_key.as_deref()) {
            request = request.header(name, value);
        }
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

/// Tells `sink` what the stream told `decoder` since it was last asked.
fn tell(decoder: &mut toolwire::provider::TurnDecoder, sink: &mut dyn TurnSink) {
    let text = decoder.take_text();
    if !text.is_empty() {
        sink.text(&text);
    }
    decoder.take_ready().iter().for_each(|call| sink.call(call));
}

/// The agent's error for a reply or stream the provider's format could not read.
fn decode_error(error: DecodeError) -> Error {
    let kind = match error.kind() {
        DecodeErrorKind::Provider => ErrorKind::Provider,
        DecodeErrorKind::Cut => ErrorKind::StreamCut,
        _ => ErrorKind::InvalidReply,
    };
    Error::new(kind, error.to_string()).with_source(error)
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
            .field("provider", &s.api.provider())
            .field("model", &s.target.model)
            .field("base_url", &s.base_url)
            .field("stream", &s.stream)
            .finish_non_exhaustive()
    }
}
