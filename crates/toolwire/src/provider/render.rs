//! What the result renderers share: the text a model reads for one result, and its content
//! split into text and the media a provider takes natively.

use std::borrow::Cow;

use crate::media::{Part, PartKind, base64, stand_in};
use crate::record::ToolResult;

/// The text of `result` for the model: its text, followed by its JSON payload when it has
/// one. A failure's text is its message; an empty result reads as an empty string.
///
/// A result with parts leads with its text alone (its JSON is for programs, as MCP's
/// `structuredContent` is), and its text parts follow in [`pieces`].
///
/// A pending result reads as `awaiting approval: <prompt>` (for a request of kind
/// `"approval"`) or `awaiting input: <prompt>`, and nothing else: the request's id and data are
/// the host's, and a model that saw them could forge an answer.
pub(super) fn model_text(result: &ToolResult) -> String {
    if let Some(request) = result.pending_request() {
        let waiting_for = if request.kind == "approval" { "approval" } else { "input" };
        return format!("awaiting {waiting_for}: {}", request.prompt);
    }
    if !result.parts().is_empty() {
        return result.text().unwrap_or_default().to_owned();
    }
    let json = result.json();
    match (result.text(), json.is_null()) {
        (Some(text), true) => text.to_owned(),
        (None, true) => String::new(),
        (None, false) => json.to_string(),
        (Some(text), false) => format!("{text}\n{json}"),
    }
}

/// One piece of what a model reads of a result.
pub(super) enum Piece<'a> {
    /// Text: the result's own, a text part, an embedded text resource, a link, or the
    /// stand-in of a part the provider does not take.
    Text(Cow<'a, str>),
    /// A part the provider takes in its native form: an image, audio, a file, or a resource
    /// with a blob.
    Media(&'a Part),
}

/// `result` as a model reads it: its [`model_text`] (when not empty), then each part, text
/// as text and media as itself when `admit` takes it, else its [`stand_in`] naming why.
pub(super) fn pieces<'a>(
    result: &'a ToolResult,
    admit: impl Fn(&Part) -> Result<(), String>,
) -> Vec<Piece<'a>> {
    let mut pieces = Vec::with_capacity(result.parts().len() + 1);
    let lead = model_text(result);
    if !lead.is_empty() {
        pieces.push(Piece::Text(Cow::Owned(lead)));
    }
    for part in result.parts() {
        pieces.push(piece(part, &admit));
    }
    pieces
}

fn piece<'a>(part: &'a Part, admit: &impl Fn(&Part) -> Result<(), String>) -> Piece<'a> {
    match part.kind() {
        PartKind::Text => Piece::Text(Cow::Borrowed(part.as_text().unwrap_or_default())),
        PartKind::Resource if !part.is_media() => Piece::Text(Cow::Owned(format!(
            "[resource {}]\n{}",
            part.uri().unwrap_or_default(),
            part.as_text().unwrap_or_default()
        ))),
        PartKind::Link => Piece::Text(Cow::Owned(link_text(part))),
        _ => match admit(part) {
            Ok(()) => Piece::Media(part),
            Err(why) => Piece::Text(Cow::Owned(stand_in(part, &why))),
        },
    }
}

/// A link as a model reads it: `[resource_link <uri>] <name>: <title> - <description>`.
fn link_text(part: &Part) -> String {
    let mut text = format!(
        "[resource_link {}] {}",
        part.uri().unwrap_or_default(),
        part.name().unwrap_or_default()
    );
    let (title, description) = part.link_title();
    if let Some(title) = title {
        text.push_str(": ");
        text.push_str(title);
    }
    if let Some(description) = description {
        text.push_str(" - ");
        text.push_str(description);
    }
    text
}

/// The text of `result` for a renderer that sends text and media apart (Chat Completions,
/// Gemini): its [`model_text`] alone when it has no parts, the common case, without going
/// through [`pieces`].
pub(super) fn text_of(result: &ToolResult, pieces: &[Piece<'_>]) -> String {
    if has_parts(result) { joined_text(pieces) } else { model_text(result) }
}

/// The [`pieces`] of `result` when it has parts; none otherwise.
pub(super) fn pieces_if_parts<'a>(
    result: &'a ToolResult,
    admit: impl Fn(&Part) -> Result<(), String>,
) -> Vec<Piece<'a>> {
    if has_parts(result) { pieces(result, admit) } else { Vec::new() }
}

/// A result as a provider that takes a list of blocks in place of its text reads it
/// (Anthropic's `tool_result` content, Responses' function output): its [`model_text`] as a
/// string when it has no parts, else its non-empty [`pieces`], each made a block by `block`.
pub(super) fn blocks_or_text(
    result: &ToolResult,
    admit: impl Fn(&Part) -> Result<(), String>,
    block: impl Fn(&Piece<'_>) -> serde_json::Value,
) -> serde_json::Value {
    if !has_parts(result) {
        return serde_json::Value::String(model_text(result));
    }
    let blocks = pieces(result, admit)
        .iter()
        .filter(|piece| !matches!(piece, Piece::Text(text) if text.is_empty()))
        .map(block)
        .collect();
    serde_json::Value::Array(blocks)
}

/// Whether `result` has media to render natively, so its renderer needs more than a string.
pub(super) fn has_parts(result: &ToolResult) -> bool {
    !result.parts().is_empty()
}

/// The texts among `pieces`, one per line.
pub(super) fn joined_text(pieces: &[Piece<'_>]) -> String {
    let texts: Vec<&str> = pieces
        .iter()
        .filter_map(|piece| match piece {
            Piece::Text(text) => Some(text.as_ref()),
            Piece::Media(_) => None,
        })
        .collect();
    texts.join("\n")
}

/// `part`'s MIME type, lower case, without parameters.
pub(super) fn essence(part: &Part) -> String {
    let mime = part.mime_type().unwrap_or("application/octet-stream");
    mime.split(';').next().unwrap_or_default().trim().to_ascii_lowercase()
}

/// `part`'s bytes as a `data:` URL, as OpenAI takes images and files.
pub(super) fn data_url(part: &Part) -> String {
    let data = part.data().map(|data| base64(data)).unwrap_or_default();
    format!("data:{};base64,{data}", essence(part))
}

/// `part`'s bytes in base64.
pub(super) fn base64_of(part: &Part) -> String {
    part.data().map(|data| base64(data)).unwrap_or_default()
}

/// How long `part`'s bytes are in base64, where a provider's limit counts them so.
pub(super) fn base64_len(part: &Part) -> usize {
    part.size().div_ceil(3) * 4
}

/// A refusal when `part` holds more than `limit` bytes in base64, naming the limit.
pub(super) fn within(part: &Part, limit: usize, title: &str) -> Result<(), String> {
    if base64_len(part) > limit {
        return Err(format!(
            "{} in base64, more than the {} {title} takes per {}",
            crate::media::Size(base64_len(part)),
            crate::media::Size(limit),
            part.kind()
        ));
    }
    Ok(())
}

/// The text an older image of the history reads as once it is no longer sent: its MIME type
/// and size (from its base64), never its bytes.
pub(super) fn older_image(mime: &str, base64: &str) -> String {
    let size = crate::media::Size(base64.len() / 4 * 3);
    format!("[image {mime}, {size}: an older image, not sent again]")
}

/// The MIME type and base64 of a `data:` URL.
pub(super) fn data_url_parts(url: &str) -> Option<(&str, &str)> {
    let rest = url.strip_prefix("data:")?;
    let (mime, data) = rest.split_once(";base64,")?;
    Some((mime, data))
}
