//! A result's [`Part`]s as MCP content blocks, and back: the same blocks, with the same
//! bytes, whichever way they go.

use rmcp::model::ContentBlock;
use serde_json::Value;
use toolwire::media::Part;

/// The scheme of the URI a toolwire file part is served under, as an embedded resource: MCP
/// has no file block. `toolwire://attachment/<name>`.
#[cfg(feature = "server")]
pub(crate) const FILE_URI_PREFIX: &str = "toolwire://attachment/";

/// The MCP content block of `part`: `text`, `image`, `audio`, `resource` or
/// `resource_link`, with its annotations and `_meta`; a file is an embedded resource whose
/// URI names it.
#[cfg(feature = "server")]
pub(crate) fn to_block(part: &Part) -> ContentBlock {
    let mut block = serde_json::to_value(part).unwrap_or(Value::Null);
    if part.kind() == toolwire::media::PartKind::File
        && let Value::Object(map) = &mut block
    {
        let name = map.remove("name").unwrap_or_default();
        let uri = format!("{FILE_URI_PREFIX}{}", encode_segment(name.as_str().unwrap_or("file")));
        let resource = serde_json::json!({"uri": uri, "mimeType": map.remove("mimeType"), "blob": map.remove("data")});
        map.insert("type".into(), Value::from("resource"));
        map.insert("resource".into(), resource);
    }
    serde_json::from_value(block).unwrap_or_else(|error| {
        ContentBlock::text(format!(
            "[{}: not served, it is not valid MCP content: {error}]",
            part.describe()
        ))
    })
}

/// The part an MCP content block is, its base64 decoded once.
///
/// # Errors
///
/// What is wrong with block `index`, in words: base64 that does not decode, a missing field,
/// or a kind toolwire does not know.
#[cfg(feature = "client")]
pub(crate) fn from_block(index: usize, block: &ContentBlock) -> Result<Part, String> {
    let value =
        serde_json::to_value(block).map_err(|error| format!("content block {index}: {error}"))?;
    let kind = value.get("type").and_then(Value::as_str).unwrap_or("?").to_owned();
    serde_json::from_value::<Part>(value)
        .map_err(|error| format!("content block {index} ({kind}) cannot be read: {error}"))
}

/// Whether `content` says nothing a single text cannot: no block, or one text block without
/// annotations or `_meta`.
#[cfg(feature = "client")]
pub(crate) fn is_plain_text(content: &[ContentBlock]) -> bool {
    match content {
        [] => true,
        [block] => {
            block.as_text().is_some_and(|text| text.meta.is_none() && text.annotations.is_none())
        }
        _ => false,
    }
}

#[cfg(feature = "server")]
/// `name` as one URI path segment: unreserved characters as they are, the rest
/// percent-encoded.
fn encode_segment(name: &str) -> String {
    let mut out = String::with_capacity(name.len());
    for byte in name.bytes() {
        if byte.is_ascii_alphanumeric() || b"-._~".contains(&byte) {
            out.push(char::from(byte));
        } else {
            out.push_str(&format!("%{byte:02X}"));
        }
    }
    out
}
