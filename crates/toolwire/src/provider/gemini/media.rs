//! A result's parts as Gemini takes them: `inlineData` parts of a `functionResponse` (the
//! multimodal function responses of the Gemini 3 models).

use serde_json::{Value, json};

use super::TITLE;
use crate::media::Part;
use crate::provider::render::{Piece, base64_of, essence, within};

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
