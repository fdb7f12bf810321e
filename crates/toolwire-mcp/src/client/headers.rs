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

/// Whether a `tools/call` of `tool`, whose input schema is `schema`, needs no header beyond
/// `Mcp-Method` and `Mcp-Name` (SEP-2243): the name is a token, sent as it is, and no
/// property asks for an `Mcp-Param-*` header with `x-mcp-header`.
pub(crate) fn plain_call(tool: &str, schema: &serde_json::Map<String, serde_json::Value>) -> bool {
    !tool.is_empty() && tool.bytes().all(is_tchar) && !asks_for_headers(schema)
}

/// An RFC 9110 token character, as `Mcp-Name` must be made of to go without encoding.
fn is_tchar(b: u8) -> bool {
    b.is_ascii_alphanumeric() || b"!#$%&'*+-.^_`|~".contains(&b)
}

/// Whether `schema` annotates anything with `x-mcp-header`, at any depth.
fn asks_for_headers(schema: &serde_json::Map<String, serde_json::Value>) -> bool {
    fn walk(value: &serde_json::Value, depth: usize) -> bool {
        match value {
            serde_json::Value::Object(map) => {
                depth > 64
                    || map
                        .iter()
                        .any(|(key, value)| key == "x-mcp-header" || walk(value, depth + 1))
            }
            serde_json::Value::Array(items) => items.iter().any(|item| walk(item, depth + 1)),
            _ => false,
        }
    }
    schema.iter().any(|(key, value)| key == "x-mcp-header" || walk(value, 1))
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::plain_call;

    fn schema(value: serde_json::Value) -> serde_json::Map<String, serde_json::Value> {
        value.as_object().cloned().unwrap_or_default()
    }

    #[test]
    fn a_call_is_plain_unless_its_name_needs_encoding_or_its_schema_asks_for_headers() {
        let flat = schema(json!({"type": "object", "properties": {"q": {"type": "string"}}}));
        assert!(plain_call("search", &flat));
        assert!(plain_call("files.read", &flat));
        assert!(!plain_call("", &flat));
        assert!(!plain_call("café", &flat), "a non-ASCII name is sent in base64");
        assert!(!plain_call("two words", &flat));
        let annotated = schema(json!({"type": "object", "properties": {
            "where": {"type": "object", "properties": {
                "region": {"type": "string", "x-mcp-header": "Region"}}}}}));
        assert!(!plain_call("deploy", &annotated), "a nested x-mcp-header");
        let listed = schema(json!({"anyOf": [{"properties": {"a": {"x-mcp-header": "A"}}}]}));
        assert!(!plain_call("deploy", &listed), "inside an array of schemas");
    }
}
