//! The custom HTTP headers a server's configuration may send, checked once when the
//! configuration is read and again when the transport is built.

use http::{HeaderName, HeaderValue};

/// Headers that the transport sets itself and that a configuration may not override.
const RESERVED_HEADERS: [&str; 3] = ["accept", "mcp-session-id", "last-event-id"];

/// Checks that `name: value` can be sent as a custom HTTP header.
pub(crate) fn check_header(name: &str, value: &str) -> Result<(), String> {
    parse_header(name, value).map(drop)
}

/// `name: value` as a header, or why it cannot be one.
pub(crate) fn parse_header(name: &str, value: &str) -> Result<(HeaderName, HeaderValue), String> {
    let header = HeaderName::try_from(name).map_err(|_| "not a valid header name".to_owned())?;
    if RESERVED_HEADERS.contains(&header.as_str()) {
        return Err("set by the transport itself; it cannot be configured".to_owned());
    }
    let value = HeaderValue::try_from(value)
        .map_err(|_| "not a valid header value (control characters?)".to_owned())?;
    Ok((header, value))
}
