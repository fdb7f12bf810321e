//! A result's parts as Chat Completions takes them: a `tool` message holds text only, so the
//! media of a turn's results go in one `user` message after its tool messages, each part
//! after a text that names its call.

use serde_json::{Value, json};

use super::TITLE;
use crate::media::Part;
use crate::provider::render::{
    Piece, base64_of, data_url, data_url_parts, essence, older_image, within,
};
use crate::record::Receipt;

/// The image types Chat Completions takes.
const IMAGES: [&str; 4] = ["image/jpeg", "image/png", "image/gif", "image/webp"];
/// 20 MB per image or file, counted in base64.
const LIMIT: usize = 20 << 20;

/// Whether Chat Completions takes `part` in the user message after a tool result, or why not.
pub(super) fn admit(part: &Part) -> Result<(), String> {
    let mime = essence(part);
    if IMAGES.contains(&mime.as_str()) || mime == "application/pdf" || audio_format(&mime).is_some()
    {
        within(part, LIMIT, TITLE)
    } else if mime.starts_with("audio/") {
        Err(format!("{TITLE} takes WAV and MP3 audio, not {mime}"))
    } else {
        Err(format!(
            "{TITLE} takes images (JPEG, PNG, GIF, WebP), PDFs and WAV or MP3 audio, not {mime}"
        ))
    }
}

/// `input_audio`'s `format` for an audio MIME type it takes.
fn audio_format(mime: &str) -> Option<&'static str> {
    match mime {
        "audio/wav" | "audio/x-wav" | "audio/wave" => Some("wav"),
        "audio/mpeg" | "audio/mp3" => Some("mp3"),
        _ => None,
    }
}

/// The content part of one admitted part.
fn content_part(part: &Part) -> Value {
    let mime = essence(part);
    if let Some(format) = audio_format(&mime) {
        return json!({"type": "input_audio", "input_audio": {"data": base64_of(part), "format": format}});
    }
    if mime == "application/pdf" {
        let name = part.name().unwrap_or("document.pdf");
        return json!({"type": "file", "file": {"filename": name, "file_data": data_url(part)}});
    }
    json!({"type": "image_url", "image_url": {"url": data_url(part)}})
}

/// The `user` message that carries the media of `results` (each a receipt with its pieces),
/// or `None` when none has any.
pub(super) fn user_message(results: &[(&Receipt, Vec<Piece<'_>>)]) -> Option<Value> {
    let mut content = Vec::new();
    for (receipt, pieces) in results {
        let media: Vec<&Part> = pieces
            .iter()
            .filter_map(|piece| match piece {
                Piece::Media(part) => Some(*part),
                Piece::Text(_) => None,
            })
            .collect();
        if media.is_empty() {
            continue;
        }
        let call = receipt.call_id.as_deref().unwrap_or_default();
        let text = format!(
            "The result of call {call} ({}) has {} attachment(s):",
            receipt.tool,
            media.len()
        );
        content.push(json!({"type": "text", "text": text}));
        content.extend(media.into_iter().map(content_part));
    }
    (!content.is_empty()).then(|| json!({"role": "user", "content": content}))
}

/// Puts a text part in place of each `image_url` part of the user messages that carry
/// results' media, newest first, that `keep` does not keep.
pub(super) fn forget_images(message: &mut Value, keep: &mut dyn FnMut() -> bool) {
    if message["role"] != "user" {
        return;
    }
    let Some(parts) = message.get_mut("content").and_then(Value::as_array_mut) else { return };
    for part in parts.iter_mut().rev().filter(|part| part["type"] == "image_url") {
        if !keep() {
            let url = part["image_url"]["url"].as_str().unwrap_or_default();
            let Some((mime, data)) = data_url_parts(url) else { continue };
            *part = json!({"type": "text", "text": older_image(mime, data)});
        }
    }
}
