//! The text that stands in for a part a model is not sent.

use super::part::Part;

/// The text a model reads in place of `part`, which was not sent for `reason`: it names the
/// part and its size, never its bytes.
///
/// ```
/// use toolwire::media::{Part, stand_in};
///
/// let audio = Part::audio("audio/wav", vec![0u8; 2048]);
/// assert_eq!(
///     stand_in(&audio, "Anthropic Messages takes no audio"),
///     "[audio audio/wav, 2.0 KiB: not shown, Anthropic Messages takes no audio]"
/// );
/// ```
pub fn stand_in(part: &Part, reason: &str) -> String {
    format!("[{}: {}]", part.describe(), not_shown(reason))
}

/// A stand-in's reason: `not shown, {reason}`.
pub(crate) fn not_shown(reason: &str) -> String {
    format!("not shown, {reason}")
}

/// `parts` in one line, each by kind, MIME type and size, never its bytes, as spans and logs
/// record them: `text 12 bytes; image image/png 67 bytes; resource_link`.
///
/// ```
/// use toolwire::media::{Part, summary};
///
/// let parts = [Part::text("hi"), Part::image("image/png", vec![0u8; 67])];
/// assert_eq!(summary(&parts), "text 2 bytes; image image/png 67 bytes");
/// ```
pub fn summary(parts: &[Part]) -> String {
    let one = |part: &Part| match (part.kind(), part.mime_type()) {
        (super::PartKind::Link, _) => "resource_link".to_owned(),
        (kind, Some(mime)) => format!("{kind} {mime} {} bytes", part.size()),
        (kind, None) => format!("{kind} {} bytes", part.size()),
    };
    parts.iter().map(one).collect::<Vec<_>>().join("; ")
}

/// `result` as a log keeps it: each part that holds bytes (an image, audio, a file, a resource
/// blob) replaced by a text part that names it by kind, MIME type and size, with `note`
/// after; the rest as it is.
///
/// ```
/// use toolwire::ToolResult;
/// use toolwire::media::{Part, without_bytes};
///
/// let result = ToolResult::from_parts(vec![Part::image("image/png", vec![0u8; 67])]);
/// let kept = without_bytes(&result, "not kept in the audit log");
/// assert_eq!(kept.parts()[0].as_text(), Some("[image image/png, 67 bytes: not kept in the audit log]"));
/// ```
pub fn without_bytes(result: &crate::ToolResult, note: &str) -> crate::ToolResult {
    let mut kept = result.clone();
    stand_in_media(&mut kept, |_| Some(note.to_owned()));
    kept
}

/// Puts [`stand_in`] text in place of each part of `result` that holds bytes and for which
/// `why` gives a reason; returns the texts put in.
pub(crate) fn stand_in_media(
    result: &mut crate::ToolResult,
    mut why: impl FnMut(&Part) -> Option<String>,
) -> Vec<String> {
    let mut texts = Vec::new();
    for part in result.parts_mut().iter_mut().filter(|part| part.is_media()) {
        if let Some(reason) = why(part) {
            let text = format!("[{}: {reason}]", part.describe());
            *part = Part::text(text.clone());
            texts.push(text);
        }
    }
    texts
}
