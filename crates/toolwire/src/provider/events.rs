//! What the reply readers and stream decoders share: an event's data as JSON, and the errors
//! they report, each naming the API.

use serde_json::Value;

use super::decode_error::{DecodeError, DecodeErrorKind};

/// An event's data as JSON.
pub(super) fn json(data: &str, title: &str) -> Result<Value, DecodeError> {
    serde_json::from_str(data).map_err(|cause| {
        let shown: String = data.chars().take(120).collect();
        let message = format!("{title} stream: an event's data is not JSON ({cause}): {shown:?}");
        DecodeError::invalid(message).caused_by(cause)
    })
}

/// A stream that ended before its end.
pub(super) fn cut(title: &str) -> DecodeError {
    let message = format!("{title} stream: the body ended before the reply was complete");
    DecodeError::new(DecodeErrorKind::Cut, message)
}

/// An `error` the provider put in a reply or a chunk, if any.
pub(super) fn reported_error(title: &str, value: &Value) -> Result<(), DecodeError> {
    match value.get("error").filter(|e| !e.is_null()) {
        Some(error) => Err(provider_error(title, error)),
        None => Ok(()),
    }
}

/// The error the provider reported as `error`: its `message`, or the whole value.
pub(super) fn provider_error(title: &str, error: &Value) -> DecodeError {
    let message = error
        .get("message")
        .and_then(Value::as_str)
        .map_or_else(|| error.to_string(), str::to_owned);
    DecodeError::new(DecodeErrorKind::Provider, format!("{title} reported an error: {message}"))
}

/// A reply without the part at `pointer`.
pub(super) fn missing(title: &str, pointer: &str) -> DecodeError {
    DecodeError::invalid(format!("{title} reply: no {pointer}"))
}
