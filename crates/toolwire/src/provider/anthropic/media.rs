//! A result's parts as Anthropic Messages takes them in a `tool_result`: `text`, `image` and
//! `document` blocks.

use serde_json::{Value, json};

use super::TITLE;
use crate::media::Part;
use crate::provider::render::{Piece, base64_of, essence, within};

/// The image types Messages takes.
const IMAGES: [&str; 4] = ["image/jpeg", "image/png", "image/gif", "image/webp"];
/// 5 MB per image, counted in base64.
const IMAGE_LIMIT: usize = 5 << 20;
/// 32 MB per request, the most a PDF can be.
const DOCUMENT_LIMIT: usize = 32 << 20;

/// Whether Messages takes `part` in a tool result, or why not.
pub(super) fn admit(part: &Part) -> Result<(), String> {
    let mime = essence(part);
    if IMAGES.contains(&mime.as_str()) {
        within(part, IMAGE_LIMIT, TITLE)
    } else if mime == "application/pdf" {
        within(part, DOCUMENT_LIMIT, TITLE)
    } else if mime.starts_with("audio/") {
        Err(format!("{TITLE} takes no audio"))
    } else {
        Err(format!("{TITLE} takes images (JPEG, PNG, GIF, WebP) and PDFs, not {mime}"))
    }
}

/// The content block of one piece.
pub(super) fn block(piece: &Piece<'_>) -> Value {
    match piece {
        Piece::Text(text) => json!({"type": "text", "text": text}),
        Piece::Media(part) if essence(part) == "application/pdf" => {
            let mut block = json!({"type": "document", "source": {"type": "base64",
                "media_type": "application/pdf", "data": base64_of(part)}});
            if let Some(name) = part.name().or_else(|| part.uri()) {
                block["title"] = json!(name);
            }
            block
        }
        Piece::Media(part) => json!({"type": "image", "source": {"type": "base64",
            "media_type": essence(part), "data": base64_of(part)}}),
    }
}
