//! Each provider's HTTP shape: the endpoint, the headers, the request body, a whole reply,
//! and a streamed reply's events.

mod anthropic;
mod gemini;
mod openai;
mod responses;
#[cfg(test)]
mod robust;

use serde_json::{Map, Value};
use toolwire::Provider;
use toolwire::provider::ParseError;

use super::{Finish, ModelRequest, ModelTurn, TurnSink, Usage};
use crate::{Error, ErrorKind};

/// What a request's body is built from besides the conversation.
#[derive(Debug, Clone)]
pub(crate) struct Target {
    pub(crate) model: String,
    pub(crate) max_tokens: Option<u32>,
    /// More top-level fields, such as `temperature`.
    pub(crate) extra: Map<String, Value>,
}

/// Takes in a streamed reply's events, reporting text and finished calls as they come.
pub(crate) trait Decode: Send {
    /// One event's data (every provider names the event inside it too).
    fn event(&mut self, data: &str, sink: &mut dyn TurnSink) -> Result<(), Error>;

    /// The whole turn, once the body has ended; every call not reported yet is reported.
    /// A body that ended before the provider's end-of-reply event is a
    /// [`StreamCut`](ErrorKind::StreamCut).
    fn finish(self: Box<Self>, sink: &mut dyn TurnSink) -> Result<ModelTurn, Error>;
}

/// The URL of a turn at `base`.
pub(crate) fn url(provider: Provider, base: &str, model: &str, stream: bool) -> String {
    match provider {
        Provider::Responses => format!("{base}/responses"),
        Provider::Anthropic => format!("{base}/messages"),
        Provider::Gemini if stream => {
            format!("{base}/models/{model}:streamGenerateContent?alt=sse")
        }
        Provider::Gemini => format!("{base}/models/{model}:generateContent"),
        _ => format!("{base}/chat/completions"),
    }
}

/// Adds the provider's authentication and version headers.
pub(crate) fn headers(
    provider: Provider,
    builder: reqwest::RequestBuilder,
    key: Option<&str>,
) -> reqwest::RequestBuilder {
    match (provider, key) {
        (Provider::Anthropic, key) => {
            let builder = builder.header("anthropic-version", "2023-06-01");
            match key {
                Some(key) => builder.header("x-api-key", key),
                None => builder,
            }
        }
        (Provider::Gemini, Some(key)) => builder.header("x-goog-api-key", key),
        (_, Some(key)) => builder.bearer_auth(key),
        (_, None) => builder,
    }
}

/// The request body.
pub(crate) fn body(
    provider: Provider,
    target: &Target,
    request: &ModelRequest<'_>,
    stream: bool,
) -> Value {
    let mut body = match provider {
        Provider::Responses => responses::body(target, request, stream),
        Provider::Anthropic => anthropic::body(target, request, stream),
        Provider::Gemini => gemini::body(target, request),
        _ => openai::body(target, request, stream),
    };
    if let Value::Object(map) = &mut body {
        map.extend(target.extra.iter().map(|(key, value)| (key.clone(), value.clone())));
    }
    body
}

/// A whole (unstreamed) reply.
pub(crate) fn reply(provider: Provider, reply: &Value) -> Result<ModelTurn, Error> {
    match provider {
        Provider::Responses => responses::reply(reply),
        Provider::Anthropic => anthropic::reply(reply),
        Provider::Gemini => gemini::reply(reply),
        _ => openai::reply(reply),
    }
}

/// A decoder for a streamed reply.
pub(crate) fn decoder(provider: Provider) -> Box<dyn Decode> {
    match provider {
        Provider::Responses => Box::<responses::Decoder>::default(),
        Provider::Anthropic => Box::<anthropic::Decoder>::default(),
        Provider::Gemini => Box::<gemini::Decoder>::default(),
        _ => Box::<openai::Decoder>::default(),
    }
}

/// The token counts at the pointers `input` and `output` of `value`, where present.
fn usage(value: &Value, input: &str, output: &str) -> Usage {
    Usage {
        input_tokens: value.pointer(input).and_then(Value::as_u64),
        output_tokens: value.pointer(output).and_then(Value::as_u64),
    }
}

/// An [`InvalidReply`](ErrorKind::InvalidReply) error.
fn invalid(message: impl Into<String>) -> Error {
    Error::new(ErrorKind::InvalidReply, message)
}

/// A reply the parser rejected.
fn unparsed(error: ParseError) -> Error {
    Error::new(ErrorKind::InvalidReply, error.to_string()).with_source(error)
}

/// An event's data as JSON.
fn json(data: &str, provider: &str) -> Result<Value, Error> {
    serde_json::from_str(data).map_err(|cause| {
        let shown: String = data.chars().take(120).collect();
        invalid(format!("{provider} stream: an event's data is not JSON ({cause}): {shown:?}"))
            .with_source(cause)
    })
}

/// A stream that ended before its end.
fn cut(provider: &str) -> Error {
    Error::new(
        ErrorKind::StreamCut,
        format!("{provider} stream: the body ended before the reply was complete"),
    )
}

/// An error the provider sent inside a stream or reply.
/// An `error` the provider put in a reply or a chunk, if any.
fn reported_error(provider: &str, value: &Value) -> Result<(), Error> {
    match value.get("error").filter(|e| !e.is_null()) {
        Some(error) => Err(provider_error(provider, error)),
        None => Ok(()),
    }
}

fn provider_error(provider: &str, error: &Value) -> Error {
    let message = error
        .get("message")
        .and_then(Value::as_str)
        .map_or_else(|| error.to_string(), str::to_owned);
    Error::new(ErrorKind::Provider, format!("{provider} reported an error: {message}"))
}

/// `text` as a [`Finish`], given how the provider names each reason.
fn finish_of(text: &str, stop: &[&str], tools: &[&str], length: &[&str]) -> Finish {
    if stop.contains(&text) {
        Finish::Stop
    } else if tools.contains(&text) {
        Finish::ToolCalls
    } else if length.contains(&text) {
        Finish::Length
    } else {
        Finish::Other(text.to_owned())
    }
}
