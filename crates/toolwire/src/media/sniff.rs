//! What bytes are, by their magic numbers: the check of a declared MIME type.

/// The MIME type `data`'s first bytes show, for the types toolwire checks: PNG, JPEG, GIF,
/// WebP, WAV, MP3, OGG, FLAC and PDF. `None` when they show none of them.
///
/// ```
/// use toolwire::media::sniff;
///
/// assert_eq!(sniff(b"\x89PNG\r\n\x1a\n...."), Some("image/png"));
/// assert_eq!(sniff(b"%PDF-1.7\n"), Some("application/pdf"));
/// assert_eq!(sniff(b"hello"), None);
/// ```
pub fn sniff(data: &[u8]) -> Option<&'static str> {
    let riff = |form: &[u8]| data.len() >= 12 && &data[..4] == b"RIFF" && &data[8..12] == form;
    if data.starts_with(b"\x89PNG\r\n\x1a\n") {
        Some("image/png")
    } else if data.starts_with(b"\xFF\xD8\xFF") {
        Some("image/jpeg")
    } else if data.starts_with(b"GIF87a") || data.starts_with(b"GIF89a") {
        Some("image/gif")
    } else if riff(b"WEBP") {
        Some("image/webp")
    } else if riff(b"WAVE") {
        Some("audio/wav")
    } else if data.starts_with(b"ID3") || mp3_frame(data) {
        Some("audio/mpeg")
    } else if data.starts_with(b"OggS") {
        Some("audio/ogg")
    } else if data.starts_with(b"fLaC") {
        Some("audio/flac")
    } else if data.starts_with(b"%PDF-") {
        Some("application/pdf")
    } else {
        None
    }
}

/// An MPEG audio frame's sync word: eleven set bits.
fn mp3_frame(data: &[u8]) -> bool {
    matches!(data, [0xFF, second, ..] if second & 0xE0 == 0xE0)
}

/// The checked type a declared MIME type names, spelled as [`sniff`] spells it; `None` for a
/// type toolwire does not check.
pub(crate) fn checked_type(declared: &str) -> Option<&'static str> {
    let essence = declared.split(';').next().unwrap_or_default().trim().to_ascii_lowercase();
    Some(match essence.as_str() {
        "image/png" => "image/png",
        "image/jpeg" | "image/jpg" | "image/pjpeg" => "image/jpeg",
        "image/gif" => "image/gif",
        "image/webp" => "image/webp",
        "audio/wav" | "audio/x-wav" | "audio/wave" | "audio/vnd.wave" => "audio/wav",
        "audio/mpeg" | "audio/mp3" | "audio/mpeg3" | "audio/x-mpeg-3" => "audio/mpeg",
        "audio/ogg" | "audio/opus" | "audio/vorbis" => "audio/ogg",
        "audio/flac" | "audio/x-flac" => "audio/flac",
        "application/pdf" => "application/pdf",
        _ => return None,
    })
}
