//! A result's parts as Responses takes them: a `function_call_output` whose `output` is a list
//! of `input_text`, `input_image` and `input_file` items.

use serde_json::{Value, json};

use super::TITLE;
use crate::media::Part;
use crate::provider::render::{Piece, data_url, essence, within};

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
