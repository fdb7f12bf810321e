//! [`Checker`]: what checks a manifest as read, with an error at the span of each problem;
//! the tools' checks (`validate`), the servers' (`mcp`) and the sandboxes' (`sandbox`) are
//! its methods, over what they share here.

use std::ops::Range;
use std::path::Path;
use std::time::Duration;

use toml::Spanned;

use super::{DEFAULT_OUTPUT_LIMIT, DEFAULT_TIMEOUT, ManifestError};

/// Checks one manifest as read.
pub(super) struct Checker<'a> {
    /// The file's path, as shown.
    pub(super) path: &'a str,
    /// The file's text.
    pub(super) source: &'a str,
    /// The folder relative paths start from.
    pub(super) folder: &'a Path,
}

/// What a check gives: the checked value, or the error at its span.
pub(super) type Checked<T> = Result<T, ManifestError>;

impl Checker<'_> {
    /// An error at `span` of the manifest.
    pub(super) fn error(&self, span: Range<usize>, message: impl Into<String>) -> ManifestError {
        ManifestError::at(self.path, self.source, span, message)
    }

    /// A `timeout`: a duration longer than zero, such as `"5s"`; the default when absent.
    pub(super) fn duration(&self, text: Option<Spanned<String>>) -> Checked<Duration> {
        let Some(text) = text else { return Ok(DEFAULT_TIMEOUT) };
        match humantime::parse_duration(text.get_ref()) {
            Ok(duration) if !duration.is_zero() => Ok(duration),
            Ok(_) => Err(self.error(text.span(), "the timeout must be longer than zero")),
            Err(why) => {
                Err(self.error(text.span(), format!("invalid timeout {:?}: {why}", text.get_ref())))
            }
        }
    }

    /// An `output_limit`: at least one byte; the default when absent.
    pub(super) fn limit(&self, limit: Option<Spanned<u64>>) -> Checked<u64> {
        match limit {
            None => Ok(DEFAULT_OUTPUT_LIMIT),
            Some(limit) if *limit.get_ref() == 0 => {
                Err(self.error(limit.span(), "output_limit must be at least 1"))
            }
            Some(limit) => Ok(limit.into_inner()),
        }
    }
}
