//! The small payloads the suite's content scenarios expect, base64-encoded.

/// A 1×1 PNG.
pub(crate) const PNG: &str = "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8DwHwAFBQIAX8jx0gAAAABJRU5ErkJggg==";

/// A WAV file of eight silent 16-bit samples at 8 kHz.
pub(crate) const WAV: &str =
    "UklGRjQAAABXQVZFZm10IBAAAAABAAEAQB8AAIA+AAACABAAZGF0YRAAAAAAAAAAAAAAAAAAAAAAAAAA";

/// Sixteen bytes, 0 to 15, for the binary resource.
pub(crate) const BYTES: &str = "AAECAwQFBgcICQoLDA0ODw==";
