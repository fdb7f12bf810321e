//! A [`Part`]'s JSON: the MCP content block of its kind, with bytes in base64.

use base64::Engine as _;
use base64::engine::general_purpose::STANDARD;
use bytes::Bytes;
use serde::de::Error as _;
use serde::{Deserialize, Deserializer, Serialize, Serializer};
use serde_json::{Map, Value};

use super::part::{Body, Link, Media, Part, PartKind, Resource, ResourceContent};

impl Serialize for Part {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        to_block(self).serialize(serializer)
    }
}

impl<'de> Deserialize<'de> for Part {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        let block = Map::deserialize(deserializer)?;
        from_block(block).map_err(D::Error::custom)
    }
}

/// `part` as its JSON block.
fn to_block(part: &Part) -> Value {
    let mut block = Map::new();
    let mut put = |key: &str, value: Value| {
        block.insert(key.to_owned(), value);
    };
    put("type", Value::from(part.kind().as_str()));
    match &part.body {
        Body::Text(text) => put("text", Value::from(text.as_str())),
        Body::Media(Media { name, mime_type, data, .. }) => {
            if let Some(name) = name {
                put("name", Value::from(name.as_str()));
            }
            put("mimeType", Value::from(mime_type.as_str()));
            put("data", Value::from(STANDARD.encode(data)));
        }
        Body::Resource(resource) => put("resource", resource_json(resource)),
        Body::Link(link) => {
            put("uri", Value::from(link.uri.as_str()));
            put("name", Value::from(link.name.as_str()));
            let optional = [
                ("title", &link.title),
                ("description", &link.description),
                ("mimeType", &link.mime_type),
            ];
            for (key, value) in optional {
                if let Some(value) = value {
                    put(key, Value::from(value.as_str()));
                }
            }
            if let Some(size) = link.size {
                put("size", Value::from(size));
            }
        }
    }
    if let Some(extra) = &part.extra {
        block.extend(extra.iter().map(|(k, v)| (k.clone(), v.clone())));
    }
    Value::Object(block)
}

fn resource_json(resource: &Resource) -> Value {
    let mut inner = Map::new();
    inner.insert("uri".to_owned(), Value::from(resource.uri.as_str()));
    if let Some(mime) = &resource.mime_type {
        inner.insert("mimeType".to_owned(), Value::from(mime.as_str()));
    }
    match &resource.content {
        ResourceContent::Text(text) => inner.insert("text".to_owned(), Value::from(text.as_str())),
        ResourceContent::Blob(data) => {
            inner.insert("blob".to_owned(), Value::from(STANDARD.encode(data)))
        }
    };
    if let Some(meta) = &resource.meta {
        inner.insert("_meta".to_owned(), meta.clone());
    }
    Value::Object(inner)
}

/// Why a block is not a part, in words.
#[derive(Debug)]
struct BlockError(String);

impl std::fmt::Display for BlockError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.0)
    }
}

/// The part a JSON block is: an MCP content block, or a toolwire `file` block.
///
/// # Errors
///
/// A [`BlockError`] naming the missing or wrong field, an unknown `type`, or base64 that does
/// not decode.
fn from_block(mut block: Map<String, Value>) -> Result<Part, BlockError> {
    let kind = take_string(&mut block, "type")?;
    let body = match kind.as_str() {
        "text" => Body::Text(take_string(&mut block, "text")?),
        "image" | "audio" | "file" => {
            let kind = match kind.as_str() {
                "image" => PartKind::Image,
                "audio" => PartKind::Audio,
                _ => PartKind::File,
            };
            let name = match kind {
                PartKind::File => Some(take_string(&mut block, "name")?),
                _ => None,
            };
            let mime_type = take_string(&mut block, "mimeType")?;
            let data = decode(&take_string(&mut block, "data")?, "data")?;
            Body::Media(Media { kind, mime_type, data, name })
        }
        "resource" => {
            let Some(Value::Object(inner)) = block.remove("resource") else {
                return Err(BlockError("a resource block needs a `resource` object".into()));
            };
            Body::Resource(resource(inner)?)
        }
        "resource_link" => Body::Link(Link {
            uri: take_string(&mut block, "uri")?,
            name: take_string(&mut block, "name")?,
            title: optional_string(&mut block, "title")?,
            description: optional_string(&mut block, "description")?,
            mime_type: optional_string(&mut block, "mimeType")?,
            size: match block.remove("size") {
                None | Some(Value::Null) => None,
                Some(Value::Number(n)) if n.as_u64().is_some() => n.as_u64(),
                Some(_) => {
                    return Err(BlockError("`size` must be a whole number of bytes".into()));
                }
            },
        }),
        other => return Err(BlockError(format!("unknown content type {other:?}"))),
    };
    // What is left (`annotations`, `_meta`, a link's `icons`, fields of later revisions) is
    // kept as it came, so that a re-served block is the same block.
    Ok(Part { body, extra: (!block.is_empty()).then(|| Box::new(block)) })
}

fn resource(mut inner: Map<String, Value>) -> Result<Resource, BlockError> {
    let uri = take_string(&mut inner, "uri")?;
    let mime_type = optional_string(&mut inner, "mimeType")?;
    let content = match (optional_string(&mut inner, "text")?, optional_string(&mut inner, "blob")?)
    {
        (Some(text), None) => ResourceContent::Text(text),
        (None, Some(blob)) => ResourceContent::Blob(decode(&blob, "resource.blob")?),
        _ => {
            return Err(BlockError(
                "an embedded resource needs exactly one of `text` and `blob`".into(),
            ));
        }
    };
    Ok(Resource { uri, mime_type, content, meta: inner.remove("_meta") })
}

fn take_string(block: &mut Map<String, Value>, key: &str) -> Result<String, BlockError> {
    match block.remove(key) {
        Some(Value::String(text)) => Ok(text),
        Some(_) => Err(BlockError(format!("`{key}` must be a string"))),
        None => Err(BlockError(format!("`{key}` is missing"))),
    }
}

fn optional_string(
    block: &mut Map<String, Value>,
    key: &str,
) -> Result<Option<String>, BlockError> {
    match block.remove(key) {
        None | Some(Value::Null) => Ok(None),
        Some(Value::String(text)) => Ok(Some(text)),
        Some(_) => Err(BlockError(format!("`{key}` must be a string"))),
    }
}

/// Base64 (standard alphabet; padding optional, as some servers omit it) to bytes.
fn decode(text: &str, field: &str) -> Result<Bytes, BlockError> {
    let engine = base64::engine::GeneralPurpose::new(
        &base64::alphabet::STANDARD,
        base64::engine::GeneralPurposeConfig::new()
            .with_decode_padding_mode(base64::engine::DecodePaddingMode::Indifferent),
    );
    engine
        .decode(text)
        .map(Bytes::from)
        .map_err(|error| BlockError(format!("`{field}` is not valid base64: {error}")))
}

/// Base64 of `data`, as every wire carries bytes.
pub(crate) fn base64(data: &[u8]) -> String {
    STANDARD.encode(data)
}
