//! Bounding texts built from what a model or a peer sent, so a failure never echoes a huge
//! input back in full.

use std::borrow::Cow;

/// The longest failure text a result carries, in bytes.
pub(crate) const MAX_FAILURE_TEXT: usize = 16 * 1024 - 64;

/// `text` cut at a character boundary at most `max` bytes in, with an ellipsis and the size
/// it had when it was cut.
pub(crate) fn clip(text: &str, max: usize) -> Cow<'_, str> {
    if text.len() <= max {
        return Cow::Borrowed(text);
    }
    Cow::Owned(format!("{}… ({} bytes in all)", floor(text, max), text.len()))
}

/// The longest start of `text` of at most `max` bytes that ends on a character boundary.
pub(crate) fn floor(text: &str, max: usize) -> &str {
    let mut end = max.min(text.len());
    while !text.is_char_boundary(end) {
        end -= 1;
    }
    &text[..end]
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn short_texts_stay_and_long_ones_are_cut_on_a_character() {
        assert_eq!(clip("abc", 3), "abc");
        let cut = clip("ééé", 3);
        assert_eq!(cut, "é… (6 bytes in all)");
    }
}
