//! A result's parts as Gemini takes them: `inlineData` parts of a `functionResponse` (the
//! multimodal function responses of the Gemini 3 models).

use serde_json::{Value, json};

use super::TITLE;
use crate::media::Part;
use crate::provider::render::{Piece, base64_of, essence, older_image, within};

/// The MIME types Gemini takes inline in a function response.
const TAKEN: [&str; 14] = [
    "image/png",
    "image/jpeg",
    "image/webp",
    "image/heic",
    "image/heif",
    "audio/wav",
    "audio/mp3",
    "audio/mpeg",
    "audio/aiff",
    "audio/aac",
    "audio/ogg",
    "audio/flac",
    "application/pdf",
    "text/plain",
];
/// 20 MB of inline data per request, counted in base64.
const LIMIT: usize = 20 << 20;

/// Whether Gemini takes `part` in a function response, or why not.
pub(super) fn admit(part: &Part) -> Result<(), String> {
    let mime = essence(part);
    if TAKEN.contains(&mime.as_str()) {
        within(part, LIMIT, TITLE)
    } else {
        Err(format!("{TITLE} takes images, audio, PDFs and plain text inline, not {mime}"))
    }
}

/// The `parts` of a function response: one `inlineData` per admitted part.
pub(super) fn parts(pieces: &[Piece<'_>]) -> Vec<Value> {
    pieces
        .iter()
        .filter_map(|piece| match piece {
            Piece::Media(part) => {
                let mut inline = json!({"mimeType": essence(part), "data": base64_of(part)});
                if let Some(name) = part.name() {
                    inline["displayName"] = json!(name);
                }
                Some(json!({"inlineData": inline}))
            }
            Piece::Text(_) => None,
        })
        .collect()
}

/// Takes out each image of a function response's `parts` in `content`, newest first, that
/// `keep` does not keep, and says so at the end of its `response` text.
pub(super) fn forget_images(content: &mut Value, keep: &mut dyn FnMut() -> bool) {
    let Some(parts) = content.get_mut("parts").and_then(Value::as_array_mut) else { return };
    for part in parts.iter_mut().rev() {
        let Some(response) = part.get_mut("functionResponse") else { continue };
        let Some(inline) = response.get_mut("parts").and_then(Value::as_array_mut) else {
            continue;
        };
        let mut notes = Vec::new();
        for i in (0..inline.len()).rev() {
            let data = &inline[i]["inlineData"];
            let mime = data["mimeType"].as_str().unwrap_or_default();
            if mime.starts_with("image/") && !keep() {
                notes.push(older_image(mime, data["data"].as_str().unwrap_or_default()));
                inline.remove(i);
            }
        }
        if inline.is_empty() {
            response.as_object_mut().map(|map| map.remove("parts"));
        }
        if notes.is_empty() {
            continue;
        }
        notes.reverse();
        let field = if response["response"].get("error").is_some() { "error" } else { "output" };
        let said = response["response"][field].as_str().unwrap_or_default().to_owned();
        let text = if said.is_empty() {
            notes.join("\n")
        } else {
            format!("{said}\n{}", notes.join("\n"))
        };
        response["response"][field] = json!(text);
    }
}
