//! A result's parts as Anthropic Messages takes them in a `tool_result`: `text`, `image` and
//! `document` blocks.

use serde_json::{Value, json};

use super::TITLE;
use crate::media::{Part, dimensions};
use crate::provider::render::{Piece, base64_of, essence, older_image, within};

/// The image types Messages takes.
const IMAGES: [&str; 4] = ["image/jpeg", "image/png", "image/gif", "image/webp"];
/// 5 MB per image, counted in base64.
const IMAGE_LIMIT: usize = 5 << 20;
/// The most pixels an image may have on either side.
const MAX_SIDE: u32 = 8000;
/// 32 MB per request, the most a PDF can be.
const DOCUMENT_LIMIT: usize = 32 << 20;

/// Whether Messages takes `part` in a tool result, or why not.
pub(super) fn admit(part: &Part) -> Result<(), String> {
    let mime = essence(part);
    if IMAGES.contains(&mime.as_str()) {
        within(part, IMAGE_LIMIT, TITLE)?;
        match part.data().and_then(|data| dimensions(data)) {
            Some((width, height)) if width > MAX_SIDE || height > MAX_SIDE => Err(format!(
                "{width}x{height} pixels, more than the {MAX_SIDE}x{MAX_SIDE} {TITLE} takes"
            )),
            _ => Ok(()),
        }
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

/// Puts a text in place of each image of a `tool_result` in `message`, newest first, that
/// `keep` does not keep.
pub(super) fn forget_images(message: &mut Value, keep: &mut dyn FnMut() -> bool) {
    let Some(blocks) = message.get_mut("content").and_then(Value::as_array_mut) else { return };
    for block in blocks.iter_mut().rev().filter(|block| block["type"] == "tool_result") {
        let Some(items) = block.get_mut("content").and_then(Value::as_array_mut) else { continue };
        for item in items.iter_mut().rev().filter(|item| item["type"] == "image") {
            if !keep() {
                let source = &item["source"];
                let text = older_image(
                    source["media_type"].as_str().unwrap_or("image"),
                    source["data"].as_str().unwrap_or_default(),
                );
                *item = json!({"type": "text", "text": text});
            }
        }
    }
}
