//! How large an image is in pixels, read from its header: a provider's pixel limits are
//! checked before the image is sent.

/// The width and height of a PNG, GIF, JPEG or WebP image, from its header; `None` for other
/// bytes, or a header too short or malformed to say.
///
/// ```
/// use toolwire::media::dimensions;
///
/// let mut png = b"\x89PNG\r\n\x1a\n\0\0\0\rIHDR".to_vec();
/// png.extend_from_slice(&640u32.to_be_bytes());
/// png.extend_from_slice(&480u32.to_be_bytes());
/// assert_eq!(dimensions(&png), Some((640, 480)));
/// assert_eq!(dimensions(b"GIF89a\x02\x00\x03\x00"), Some((2, 3)));
/// ```
pub fn dimensions(data: &[u8]) -> Option<(u32, u32)> {
    if data.starts_with(b"\x89PNG\r\n\x1a\n") {
        return Some((be32(data, 16)?, be32(data, 20)?));
    }
    if data.starts_with(b"GIF87a") || data.starts_with(b"GIF89a") {
        return Some((u32::from(le16(data, 6)?), u32::from(le16(data, 8)?)));
    }
    if data.len() >= 12 && &data[..4] == b"RIFF" && &data[8..12] == b"WEBP" {
        return webp(data);
    }
    if data.starts_with(b"\xFF\xD8") {
        return jpeg(data);
    }
    None
}

fn be32(data: &[u8], at: usize) -> Option<u32> {
    Some(u32::from_be_bytes(data.get(at..at + 4)?.try_into().ok()?))
}

fn be16(data: &[u8], at: usize) -> Option<u16> {
    Some(u16::from_be_bytes(data.get(at..at + 2)?.try_into().ok()?))
}

fn le16(data: &[u8], at: usize) -> Option<u16> {
    Some(u16::from_le_bytes(data.get(at..at + 2)?.try_into().ok()?))
}

fn le24(data: &[u8], at: usize) -> Option<u32> {
    let b = data.get(at..at + 3)?;
    Some(u32::from(b[0]) | u32::from(b[1]) << 8 | u32::from(b[2]) << 16)
}

/// A WebP's size, from its first chunk: lossy (`VP8 `), lossless (`VP8L`) or extended
/// (`VP8X`).
fn webp(data: &[u8]) -> Option<(u32, u32)> {
    match data.get(12..16)? {
        b"VP8X" => Some((le24(data, 24)? + 1, le24(data, 27)? + 1)),
        b"VP8L" => {
            let bits = u32::from_le_bytes(data.get(21..25)?.try_into().ok()?);
            Some(((bits & 0x3FFF) + 1, ((bits >> 14) & 0x3FFF) + 1))
        }
        b"VP8 " => Some((u32::from(le16(data, 26)? & 0x3FFF), u32::from(le16(data, 28)? & 0x3FFF))),
        _ => None,
    }
}

/// A JPEG's size, from its first start-of-frame marker.
fn jpeg(data: &[u8]) -> Option<(u32, u32)> {
    let mut at = 2;
    loop {
        // Markers may be padded with 0xFF bytes.
        while *data.get(at)? == 0xFF && *data.get(at + 1)? == 0xFF {
            at += 1;
        }
        if *data.get(at)? != 0xFF {
            return None;
        }
        let marker = *data.get(at + 1)?;
        let is_frame = matches!(marker, 0xC0..=0xCF) && !matches!(marker, 0xC4 | 0xC8 | 0xCC);
        if is_frame {
            let height = be16(data, at + 5)?;
            let width = be16(data, at + 7)?;
            return Some((u32::from(width), u32::from(height)));
        }
        let length = usize::from(be16(data, at + 2)?);
        if length < 2 {
            return None;
        }
        at += 2 + length;
    }
}
