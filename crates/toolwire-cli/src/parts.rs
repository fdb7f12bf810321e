//! A result's content parts in the terminal: one line each, and `--save DIR`, which writes
//! them out as files.

use std::io::Write as _;
use std::path::{Path, PathBuf};

use toolwire::ToolResult;
use toolwire::media::{Part, PartKind};

/// The line that stands for `part` on stdout: a text part's text, anything else its kind,
/// MIME type and size (and where it was saved).
pub(crate) fn line(part: &Part, saved: Option<&Path>) -> String {
    match (part.kind(), saved) {
        (PartKind::Text, _) => part.as_text().unwrap_or_default().to_owned(),
        (_, Some(path)) => format!("[{}, saved to {}]", part.describe(), path.display()),
        (_, None) => format!("[{}]", part.describe()),
    }
}

/// Writes each part of `result` that holds content other than plain text into `dir` (made
/// when missing), as `<n>-<name>`: a file's own name (only its last path segment), else the
/// part's kind with the extension of its MIME type. Returns each part's path, `None` for the
/// parts not written.
///
/// # Errors
///
/// What could not be written, and where.
pub(crate) fn save(result: &ToolResult, dir: &Path) -> Result<Vec<Option<PathBuf>>, String> {
    std::fs::create_dir_all(dir)
        .map_err(|error| format!("cannot make the folder {}: {error}", dir.display()))?;
    let mut paths = Vec::with_capacity(result.parts().len());
    for (index, part) in result.parts().iter().enumerate() {
        let bytes: &[u8] = match (part.kind(), part.data(), part.as_text()) {
            (PartKind::Text | PartKind::Link, _, _) => {
                paths.push(None);
                continue;
            }
            (_, Some(data), _) => data,
            (_, None, Some(text)) => text.as_bytes(),
            _ => {
                paths.push(None);
                continue;
            }
        };
        let path = dir.join(format!("{index}-{}", file_name(part)));
        // `create_new`: a part never overwrites a file that is already there.
        let mut file = std::fs::OpenOptions::new()
            .write(true)
            .create_new(true)
            .open(&path)
            .map_err(|error| format!("cannot write {}: {error}", path.display()))?;
        file.write_all(bytes)
            .map_err(|error| format!("cannot write {}: {error}", path.display()))?;
        paths.push(Some(path));
    }
    Ok(paths)
}

/// A safe file name for `part`: its own name's last segment, else its URI's, else its kind
/// and an extension from its MIME type; never `..`, a path, or a hidden name.
fn file_name(part: &Part) -> String {
    let own = part
        .name()
        .or_else(|| part.uri().and_then(|uri| uri.rsplit('/').next()))
        .map(|name| name.rsplit(['/', '\\']).next().unwrap_or_default())
        .map(|name| name.chars().filter(|c| !c.is_control()).collect::<String>())
        .filter(|name| !name.is_empty() && !name.starts_with('.'));
    own.unwrap_or_else(|| format!("{}.{}", part.kind(), extension(part.mime_type())))
}

/// The usual extension of a MIME type.
fn extension(mime: Option<&str>) -> &'static str {
    let essence = mime.unwrap_or_default().split(';').next().unwrap_or_default().trim();
    match essence.to_ascii_lowercase().as_str() {
        "image/png" => "png",
        "image/jpeg" => "jpg",
        "image/gif" => "gif",
        "image/webp" => "webp",
        "audio/wav" | "audio/x-wav" | "audio/wave" => "wav",
        "audio/mpeg" | "audio/mp3" => "mp3",
        "audio/ogg" => "ogg",
        "audio/flac" => "flac",
        "application/pdf" => "pdf",
        "text/plain" => "txt",
        "text/markdown" => "md",
        "text/csv" => "csv",
        "application/json" => "json",
        _ => "bin",
    }
}
