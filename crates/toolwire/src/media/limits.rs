//! [`PartLimits`]: how large a result's parts may be, and the check of each part before
//! anything is sent.

use std::fmt;

use super::part::{Part, PartKind};
use super::size::Size;
use super::sniff::{checked_type, sniff};

/// How large the parts of one result may be. A result over a limit, or with a part whose
/// bytes contradict its declared MIME type, fails with
/// [`FailureKind::InvalidOutput`](crate::FailureKind::InvalidOutput) before any provider or
/// client sees it.
///
/// The defaults fit every provider's request: 20 MiB per part and 32 MiB per result.
/// Anthropic takes up to 5 MB per image and 32 MB per request, Gemini 20 MB of inline data
/// per request, OpenAI 50 MB of files per request; a part a provider cannot take is replaced
/// by a short stand-in when its request is rendered (see [`provider`](crate::provider)).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[non_exhaustive]
pub struct PartLimits {
    /// The most bytes one part may hold.
    pub max_part_bytes: usize,
    /// The most bytes all the parts of one result may hold together.
    pub max_result_bytes: usize,
}

impl Default for PartLimits {
    fn default() -> Self {
        Self { max_part_bytes: 20 << 20, max_result_bytes: 32 << 20 }
    }
}

impl PartLimits {
    /// Limits of `max_part_bytes` per part and `max_result_bytes` per result.
    pub const fn new(max_part_bytes: usize, max_result_bytes: usize) -> Self {
        Self { max_part_bytes, max_result_bytes }
    }

    /// Checks `parts` against these limits and their declared MIME types.
    ///
    /// # Errors
    ///
    /// A [`PartError`] naming the first part that is too large or whose bytes are not what
    /// it declares, or the total.
    ///
    /// ```
    /// use toolwire::media::{Part, PartLimits};
    ///
    /// let limits = PartLimits::default();
    /// assert!(limits.check(&[Part::image("image/png", b"\x89PNG\r\n\x1a\n".to_vec())]).is_ok());
    /// let wrong = limits.check(&[Part::image("image/png", b"\xFF\xD8\xFF\xE0".to_vec())]);
    /// assert_eq!(
    ///     wrong.unwrap_err().to_string(),
    ///     "part 0 (image image/png, 4 bytes) declares image/png but its bytes are image/jpeg"
    /// );
    /// ```
    pub fn check(&self, parts: &[Part]) -> Result<(), PartError> {
        let mut total = 0usize;
        for (index, part) in parts.iter().enumerate() {
            let size = part.size();
            if size > self.max_part_bytes {
                return Err(PartError::new(
                    index,
                    part,
                    format!(
                        "holds {} bytes, more than the {} allowed per part",
                        size, self.max_part_bytes
                    ),
                ));
            }
            check_type(index, part)?;
            total = total.saturating_add(size);
        }
        if total > self.max_result_bytes {
            return Err(PartError {
                index: None,
                message: format!(
                    "the result's parts hold {total} bytes ({}), more than the {} bytes ({}) \
                     allowed per result",
                    Size(total),
                    self.max_result_bytes,
                    Size(self.max_result_bytes)
                ),
            });
        }
        Ok(())
    }
}

/// A part whose bytes do not show the type it declares, for the image, audio and PDF types
/// toolwire recognises.
fn check_type(index: usize, part: &Part) -> Result<(), PartError> {
    let (Some(declared), Some(data)) = (part.mime_type(), part.data()) else { return Ok(()) };
    let Some(expected) = checked_type(declared) else {
        return match part.kind() {
            PartKind::Image | PartKind::Audio if !declared.contains('/') => Err(PartError::new(
                index,
                part,
                format!("declares {declared:?}, which is not a MIME type"),
            )),
            _ => Ok(()),
        };
    };
    match sniff(data) {
        Some(found) if found == expected => Ok(()),
        Some(found) => Err(PartError::new(
            index,
            part,
            format!("declares {declared} but its bytes are {found}"),
        )),
        None => Err(PartError::new(
            index,
            part,
            format!("declares {declared} but its bytes do not start as {expected} does"),
        )),
    }
}

/// Why a result's parts cannot be sent: the part, and what is wrong with it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PartError {
    index: Option<usize>,
    message: String,
}

impl PartError {
    fn new(index: usize, part: &Part, what: String) -> Self {
        Self { index: Some(index), message: format!("part {index} ({}) {what}", part.describe()) }
    }

    /// The index of the part at fault; `None` when the total is too large.
    pub fn index(&self) -> Option<usize> {
        self.index
    }
}

impl fmt::Display for PartError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.message)
    }
}

impl std::error::Error for PartError {}
