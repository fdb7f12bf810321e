//! [`CedarError`]: a policy that cannot be read, parsed or checked, with where it went wrong.

use std::fmt;

/// What kind of problem a [`CedarError`] reports.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum CedarErrorKind {
    /// A policy file or folder could not be read.
    Read,
    /// A policy is not valid Cedar.
    Parse,
    /// Two policies have the same id, or an annotation is misused (`@ask` on a `forbid`).
    Annotation,
    /// A policy does not fit the tools: an argument, tool or attribute that does not exist,
    /// or a value of the wrong type.
    Validate,
    /// The Cedar schema made from the tools was refused (a bug, or a tool Cedar cannot
    /// describe).
    Schema,
}

/// A policy that cannot be used, with the place it went wrong where there is one, shown as
/// the manifest's errors are (a program prints `error: ` before it; further problems found
/// in the same pass follow, each after `error: `):
///
/// ```text
/// for policy `prod-asks`, attribute `evn` on type `deployInput` not found
///  --> policy.cedar:4:15
///   |
/// 4 | when { context.input.evn == "prod" };
///   |        ^^^^^^^^^^^^^^^^^
/// ```
#[derive(Clone, PartialEq, Eq)]
pub struct CedarError(Box<Inner>);

#[derive(Clone, PartialEq, Eq)]
struct Inner {
    kind: CedarErrorKind,
    message: String,
    place: Option<Place>,
    /// Further problems found in the same pass, each written in full.
    more: Vec<CedarError>,
}

/// Where in a file a problem is.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Place {
    pub(crate) file: String,
    pub(crate) line: usize,
    pub(crate) column: usize,
    pub(crate) text: String,
    pub(crate) width: usize,
}

impl Place {
    /// The place of the byte range `offset..offset + len` in `text`, from the file `file`.
    pub(crate) fn at(file: &str, text: &str, offset: usize, len: usize) -> Self {
        let offset = floor_char(text, offset.min(text.len()));
        let start = text[..offset].rfind('\n').map_or(0, |i| i + 1);
        let end = text[offset..].find('\n').map_or(text.len(), |i| offset + i);
        let line_text = text[start..end].trim_end_matches('\r');
        let column = text[start..offset].chars().count() + 1;
        let shown = line_text.chars().count().saturating_sub(column - 1);
        Place {
            file: file.to_owned(),
            line: text[..offset].matches('\n').count() + 1,
            column,
            text: line_text.to_owned(),
            width: len.clamp(1, shown.max(1)),
        }
    }
}

/// The largest char boundary at or below `index`.
fn floor_char(text: &str, mut index: usize) -> usize {
    while !text.is_char_boundary(index) {
        index -= 1;
    }
    index
}

impl CedarError {
    pub(crate) fn new(kind: CedarErrorKind, message: impl Into<String>) -> Self {
        Self(Box::new(Inner { kind, message: message.into(), place: None, more: Vec::new() }))
    }

    pub(crate) fn at(mut self, place: Option<Place>) -> Self {
        self.0.place = place;
        self
    }

    /// One error for `errors`, the first leading; `None` for none.
    pub(crate) fn all(mut errors: Vec<CedarError>) -> Option<Self> {
        if errors.is_empty() {
            return None;
        }
        let mut first = errors.remove(0);
        first.0.more = errors;
        Some(first)
    }

    /// What kind of problem it is.
    pub fn kind(&self) -> CedarErrorKind {
        self.0.kind
    }

    /// The problem, without its place.
    pub fn message(&self) -> &str {
        &self.0.message
    }

    /// The file, line and column (1-based) of the problem, where it has one.
    pub fn location(&self) -> Option<(&str, usize, usize)> {
        self.0.place.as_ref().map(|p| (p.file.as_str(), p.line, p.column))
    }

    /// The other problems found with this one.
    pub fn others(&self) -> &[CedarError] {
        &self.0.more
    }
}

impl fmt::Display for CedarError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0.message)?;
        if let Some(place) = &self.0.place {
            let gutter = " ".repeat(place.line.to_string().len());
            let caret = "^".repeat(place.width);
            let pad = " ".repeat(place.column - 1);
            write!(
                f,
                "\n{gutter}--> {}:{}:{}\n{gutter} |\n{} | {}\n{gutter} | {pad}{caret}",
                place.file, place.line, place.column, place.line, place.text
            )?;
        }
        for other in &self.0.more {
            write!(f, "\n\nerror: {other}")?;
        }
        Ok(())
    }
}

impl fmt::Debug for CedarError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("CedarError")
            .field("kind", &self.0.kind)
            .field("message", &self.0.message)
            .field("location", &self.location())
            .field("others", &self.0.more.len())
            .finish()
    }
}

impl std::error::Error for CedarError {}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn shows_the_line_and_a_caret_under_the_span() {
        let text = "permit(principal, action, resource)\nwhen { context.input.evn };\n";
        let offset = text.find("context").unwrap();
        let err = CedarError::new(CedarErrorKind::Validate, "no `evn`")
            .at(Some(Place::at("p.cedar", text, offset, 17)));
        let expected = "no `evn`\n --> p.cedar:2:8\n  |\n2 | when { context.input.evn };\n  |        ^^^^^^^^^^^^^^^^^";
        assert_eq!(err.to_string(), expected);
        assert_eq!(err.location(), Some(("p.cedar", 2, 8)));
    }

    #[test]
    fn an_offset_inside_a_character_or_past_the_end_is_clamped() {
        let text = "é\n";
        let place = Place::at("f", text, 1, 50);
        assert_eq!((place.line, place.column, place.width), (1, 1, 1));
        let place = Place::at("f", text, 99, 1);
        assert_eq!(place.line, 2);
    }
}
