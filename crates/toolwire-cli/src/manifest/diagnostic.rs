//! A manifest error rendered the way `cargo` renders a bad `Cargo.toml`: the message, the
//! file with its line and column, and the line with the span underlined.

use std::fmt;
use std::ops::Range;

/// An error in a manifest, at a place in its text.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct ManifestError {
    message: String,
    location: Option<Location>,
}

/// Where a [`ManifestError`] is: the file, the line and column (from 1), and the line.
#[derive(Debug, Clone, PartialEq, Eq)]
struct Location {
    path: String,
    line: usize,
    column: usize,
    text: String,
    width: usize,
}

impl ManifestError {
    /// An error at `span` (byte offsets) of `source`, the text of the file at `path`.
    pub(crate) fn at(
        path: &str,
        source: &str,
        span: Range<usize>,
        message: impl Into<String>,
    ) -> Self {
        let location = Some(Location::find(path, source, span));
        Self { message: message.into(), location }
    }

    /// An error about the whole file, such as one that cannot be read.
    pub(crate) fn whole(message: impl Into<String>) -> Self {
        Self { message: message.into(), location: None }
    }
}

impl Location {
    fn find(path: &str, source: &str, span: Range<usize>) -> Self {
        let start = floor_char_boundary(source, span.start.min(source.len()));
        let line_start = source[..start].rfind('\n').map_or(0, |i| i + 1);
        let line_end = source[start..].find('\n').map_or(source.len(), |i| start + i);
        let text = source[line_start..line_end].trim_end_matches('\r').to_owned();
        let line = source[..start].matches('\n').count() + 1;
        let column = source[line_start..start].chars().count() + 1;
        let end = span.end.clamp(start, line_end);
        let width = source[start..floor_char_boundary(source, end)].chars().count().max(1);
        Self { path: path.to_owned(), line, column, text, width }
    }
}

fn floor_char_boundary(text: &str, mut index: usize) -> usize {
    while index > 0 && !text.is_char_boundary(index) {
        index -= 1;
    }
    index
}

impl fmt::Display for ManifestError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}", self.message)?;
        let Some(at) = &self.location else { return Ok(()) };
        let number = at.line.to_string();
        let gutter = " ".repeat(number.len());
        let pad = " ".repeat(at.column.saturating_sub(1));
        write!(f, "\n{gutter}--> {}:{}:{}", at.path, at.line, at.column)?;
        write!(f, "\n{gutter} |\n{number} | {}", at.text)?;
        write!(f, "\n{gutter} | {pad}{}", "^".repeat(at.width))
    }
}

impl std::error::Error for ManifestError {}
