//! The digest an approval is bound to: SHA-256 over the tool's name, the call id and the
//! canonical JSON of the arguments.

use std::fmt::Write;

use serde_json::Value;
use sha2::{Digest, Sha256};

/// The hex SHA-256 digest of a call: the digest an approval is bound to, and by which a
/// journal tells a repeated call from a different call under the same id.
///
/// Each part is preceded by its length, so no two different calls hash the same bytes.
/// The arguments are written as canonical JSON: no white space, and object keys sorted by
/// their UTF-8 bytes, so the same arguments in any key order give the same digest.
///
/// ```
/// use serde_json::json;
/// use toolwire::policy::call_digest;
///
/// let a = call_digest("send", "call_1", &json!({"to": "ada", "n": 1}));
/// assert_eq!(a, call_digest("send", "call_1", &json!({"n": 1, "to": "ada"})));
/// assert_ne!(a, call_digest("send", "call_1", &json!({"to": "bob", "n": 1})));
/// assert_eq!(a.len(), 64);
/// ```
///
/// It recurses once per level of nesting: pass arguments that passed the tool's depth limit
/// (as a registry's calls have), not arbitrarily deep values.
pub fn call_digest(tool: &str, call_id: &str, arguments: &Value) -> String {
    let canonical = canonical_json(arguments);
    let mut hasher = Sha256::new();
    for part in [tool, call_id, canonical.as_str()] {
        hasher.update((part.len() as u64).to_be_bytes());
        hasher.update(part.as_bytes());
    }
    hex(&hasher.finalize())
}

/// `value` as canonical JSON: no white space, and object keys sorted by their UTF-8 bytes, so
/// equal values in any key order give the same text. Values parsed by `serde_json` nest at most
/// 128 levels, which bounds the recursion.
///
/// ```
/// use serde_json::json;
/// assert_eq!(toolwire::policy::canonical_json(&json!({"b": [1, null], "a": "x"})), r#"{"a":"x","b":[1,null]}"#);
/// ```
pub fn canonical_json(value: &Value) -> String {
    let mut out = Vec::new();
    write_canonical(value, &mut out);
    // serde_json writes UTF-8 only, so this never needs the fallback.
    String::from_utf8(out).unwrap_or_else(|e| String::from_utf8_lossy(e.as_bytes()).into_owned())
}

/// Lower-case hex of `bytes`.
pub(super) fn hex(bytes: &[u8]) -> String {
    let mut out = String::with_capacity(bytes.len() * 2);
    for byte in bytes {
        // Writing to a String cannot fail.
        let _ = write!(out, "{byte:02x}");
    }
    out
}

/// Appends the canonical JSON of `value`. Arguments reach here after the size and depth
/// limits, so the recursion is bounded.
fn write_canonical(value: &Value, out: &mut Vec<u8>) {
    match value {
        Value::Object(map) => {
            let mut entries: Vec<(&String, &Value)> = map.iter().collect();
            entries.sort_unstable_by(|a, b| a.0.as_bytes().cmp(b.0.as_bytes()));
            out.push(b'{');
            for (i, (key, item)) in entries.into_iter().enumerate() {
                if i > 0 {
                    out.push(b',');
                }
                write_scalar(key, out);
                out.push(b':');
                write_canonical(item, out);
            }
            out.push(b'}');
        }
        Value::Array(items) => {
            out.push(b'[');
            for (i, item) in items.iter().enumerate() {
                if i > 0 {
                    out.push(b',');
                }
                write_canonical(item, out);
            }
            out.push(b']');
        }
        scalar => write_scalar(scalar, out),
    }
}

/// Appends a string, number, boolean or null as serde_json writes it, escaped in place.
fn write_scalar(value: &(impl serde::Serialize + ?Sized), out: &mut Vec<u8>) {
    // Writing to a Vec cannot fail, and a scalar always serializes.
    let _ = serde_json::to_writer(&mut *out, value);
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    #[test]
    fn key_order_does_not_matter_but_every_part_does() {
        let a = call_digest("t", "c", &json!({"a": 1, "b": [true, null, "x"]}));
        let b = call_digest("t", "c", &json!({"b": [true, null, "x"], "a": 1}));
        assert_eq!(a, b);
        assert_ne!(a, call_digest("t", "d", &json!({"a": 1, "b": [true, null, "x"]})));
        assert_ne!(a, call_digest("u", "c", &json!({"a": 1, "b": [true, null, "x"]})));
        assert_ne!(a, call_digest("t", "c", &json!({"a": 2, "b": [true, null, "x"]})));
        // Lengths come first: moving a character between parts changes the digest.
        assert_ne!(call_digest("ab", "c", &json!({})), call_digest("a", "bc", &json!({})));
    }
}
