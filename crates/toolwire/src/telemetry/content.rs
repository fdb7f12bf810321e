//! The opt-in recording of a call's arguments and result on its span.

use std::sync::atomic::{AtomicBool, Ordering};

use serde_json::Value;

/// The most bytes of arguments or of a result a span carries; the rest is cut, at a
/// character boundary, and marked with `…`.
pub const CONTENT_LIMIT: usize = 4096;

static CONTENT: AtomicBool = AtomicBool::new(false);

/// Turns the recording of arguments and results on spans on or off, for the whole process
/// (off until called).
///
/// ```
/// toolwire::telemetry::record_content(true);
/// # toolwire::telemetry::record_content(false);
/// ```
pub fn record_content(on: bool) {
    CONTENT.store(on, Ordering::Relaxed);
}

/// Whether arguments and results go on spans.
pub(crate) fn content_on() -> bool {
    CONTENT.load(Ordering::Relaxed)
}

/// `value` as compact JSON, clipped to [`CONTENT_LIMIT`] bytes.
pub(crate) fn clipped(value: &Value) -> String {
    let mut text = value.to_string();
    if text.len() > CONTENT_LIMIT {
        let mut end = CONTENT_LIMIT;
        while !text.is_char_boundary(end) {
            end -= 1;
        }
        text.truncate(end);
        text.push('…');
    }
    text
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    #[test]
    fn content_is_clipped_at_a_character_boundary() {
        assert_eq!(clipped(&json!({"a": 1})), r#"{"a":1}"#);
        let long = clipped(&json!("é".repeat(CONTENT_LIMIT)));
        assert!(long.ends_with('…'), "{long}");
        assert!(long.len() <= CONTENT_LIMIT + '…'.len_utf8());
    }
}
