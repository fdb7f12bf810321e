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
    format!("[{}: not shown, {reason}]", part.describe())
}
