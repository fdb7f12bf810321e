//! A result's parts as Responses takes them: a `function_call_output` whose `output` is a list
//! of `input_text`, `input_image` and `input_file` items.

use serde_json::{Value, json};

use super::TITLE;
use crate::media::Part;
use crate::provider::render::{Piece, data_url, data_url_parts, essence, older_image, within};

/// The image types Responses takes.
const IMAGES: [&str; 4] = ["image/jpeg", "image/png", "image/gif", "image/webp"];
/// 20 MB per image, counted in base64.
const IMAGE_LIMIT: usize = 20 << 20;
/// 50 MB per file, counted in base64.
const FILE_LIMIT: usize = 50 << 20;

/// Whether Responses takes `part` in a function's output, or why not.
pub(super) fn admit(part: &Part) -> Result<(), String> {
    let mime = essence(part);
    if IMAGES.contains(&mime.as_str()) {
        within(part, IMAGE_LIMIT, TITLE)
    } else if mime.starts_with("audio/") {
        Err(format!("{TITLE} takes no audio in a function's output"))
    } else if mime.starts_with("image/") {
        Err(format!("{TITLE} takes JPEG, PNG, GIF and WebP images, not {mime}"))
    } else {
        within(part, FILE_LIMIT, TITLE)
    }
}

/// The output item of one piece.
pub(super) fn item(piece: &Piece<'_>) -> Value {
    match piece {
        Piece::Text(text) => json!({"type": "input_text", "text": text}),
        Piece::Media(part) if essence(part).starts_with("image/") => {
            json!({"type": "input_image", "image_url": data_url(part)})
        }
        Piece::Media(part) => {
            let name = part.name().map_or_else(|| default_name(part), str::to_owned);
            json!({"type": "input_file", "filename": name, "file_data": data_url(part)})
        }
    }
}

/// A name for a file that came without one: the last segment of its URI, else `file`.
fn default_name(part: &Part) -> String {
    part.uri()
        .and_then(|uri| uri.rsplit('/').find(|segment| !segment.is_empty()))
        .unwrap_or("file")
        .to_owned()
}

/// Puts an `input_text` in place of each `input_image` of a function's output in `item`,
/// newest first, that `keep` does not keep.
pub(super) fn forget_images(item: &mut Value, keep: &mut dyn FnMut() -> bool) {
    if item["type"] != "function_call_output" {
        return;
    }
    let Some(outputs) = item.get_mut("output").and_then(Value::as_array_mut) else { return };
    for output in outputs.iter_mut().rev().filter(|output| output["type"] == "input_image") {
        if !keep() {
            let url = output["image_url"].as_str().unwrap_or_default();
            let (mime, data) = data_url_parts(url).unwrap_or(("image", ""));
            *output = json!({"type": "input_text", "text": older_image(mime, data)});
        }
    }
}
