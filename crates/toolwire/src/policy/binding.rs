//! Approval ids keyed to the call they were issued for, and their check.

use std::fmt;
use std::sync::OnceLock;
use std::time::{Duration, SystemTime, UNIX_EPOCH};

use hmac::{Hmac, Mac};
use sha2::Sha256;

use super::digest::hex;
use crate::record::{Answer, clip};

/// Bytes of the keyed tag kept in an id.
const TAG_BYTES: usize = 16;
/// Hex digits of the digest kept in an id, to tell a replay from a forgery in messages.
const DIGEST_HINT: usize = 12;

/// The secret that approval ids are keyed with.
///
/// A registry makes a random one when it is sealed. Processes that resume each other's
/// calls (for example through a shared journal) must share a key: set it with
/// [`RegistryBuilder::approval_key`](crate::RegistryBuilder::approval_key).
///
/// It is 32 bytes held inline, so handing it to every call costs a copy, not an atomic
/// reference count.
#[derive(Clone, Copy)]
pub struct ApprovalKey([u8; 32]);

impl ApprovalKey {
    /// A key from 32 secret bytes.
    pub fn from_bytes(bytes: [u8; 32]) -> Self {
        Self(bytes)
    }

    /// A fresh random key from the operating system's generator.
    pub fn random() -> Self {
        let mut bytes = [0u8; 32];
        if getrandom::fill(&mut bytes).is_err() {
            // No OS generator: fall back on the standard library's randomly seeded hasher
            // keys, which still differ per process.
            for (i, chunk) in bytes.chunks_mut(8).enumerate() {
                use std::hash::BuildHasher;
                let word = std::collections::hash_map::RandomState::new().hash_one(i);
                chunk.copy_from_slice(&word.to_le_bytes());
            }
        }
        Self::from_bytes(bytes)
    }

    /// A keyed tag (HMAC-SHA-256) over `message`, for a host that seals state of its own
    /// with the registry's key, such as an MCP server's `requestState`. `domain` names what
    /// is tagged, so a tag made for one use is never valid for another, nor for an approval
    /// id.
    pub fn sign(&self, domain: &str, message: &[u8]) -> [u8; 32] {
        self.domain_mac(domain, message).finalize().into_bytes().into()
    }

    /// Whether `tag` is [`sign`](Self::sign)'s tag of `message` for `domain`, compared in
    /// constant time.
    pub fn verify(&self, domain: &str, message: &[u8], tag: &[u8]) -> bool {
        self.domain_mac(domain, message).verify_slice(tag).is_ok()
    }

    fn domain_mac(&self, domain: &str, message: &[u8]) -> Hmac<Sha256> {
        let mut mac = match Hmac::<Sha256>::new_from_slice(&self.0[..]) {
            Ok(mac) => mac,
            Err(_) => unreachable_key(),
        };
        // Approval ids' tags start with their purpose's prefix (`apr-`, `inp-`); this one
        // cannot, so the two never collide.
        mac.update(b"toolwire-sealed\0");
        mac.update(domain.as_bytes());
        mac.update(b"\0");
        mac.update(message);
        mac
    }

    /// The key of calls made outside a registry, random per process.
    pub(crate) fn process() -> &'static ApprovalKey {
        static KEY: OnceLock<ApprovalKey> = OnceLock::new();
        KEY.get_or_init(ApprovalKey::random)
    }

    fn tag(&self, purpose: Purpose, nonce: &str, expiry: &str, digest: &str) -> Hmac<Sha256> {
        // HMAC takes a key of any length, so this cannot fail.
        let mut mac = match Hmac::<Sha256>::new_from_slice(&self.0[..]) {
            Ok(mac) => mac,
            Err(_) => unreachable_key(),
        };
        for part in [purpose.prefix(), nonce, expiry, digest] {
            mac.update(part.as_bytes());
            mac.update(b"\0");
        }
        mac
    }
}

#[cold]
fn unreachable_key() -> Hmac<Sha256> {
    // `new_from_slice` only fails for fixed-size MACs; HMAC is not one. Should it ever fail,
    // a zero key still keys every id alike, so checks stay consistent.
    <Hmac<Sha256> as hmac::digest::KeyInit>::new(&Default::default())
}

impl fmt::Debug for ApprovalKey {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("ApprovalKey(..)")
    }
}

/// What a keyed id answers: a policy's approval, or a handler's own request.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Purpose {
    /// An approval a policy (or `needs_approval`) asked for: the policy step consumes it.
    Approval,
    /// A handler's own request: the policy step checks it and the handler reads it.
    Input,
}

impl Purpose {
    const fn prefix(self) -> &'static str {
        match self {
            Purpose::Approval => "apr-",
            Purpose::Input => "inp-",
        }
    }

    /// The purpose whose prefix `id` has, if any.
    pub(crate) fn of(id: &str) -> Option<Purpose> {
        [Purpose::Approval, Purpose::Input].into_iter().find(|p| id.starts_with(p.prefix()))
    }
}

/// Hex digits of an id's nonce and of its expiry (milliseconds since the Unix epoch).
const NONCE_HEX: usize = 16;
const EXPIRY_HEX: usize = 16;

/// A fresh keyed id for a call with `digest`, lapsing at `expires_at`:
/// `<prefix><nonce>-<expiry>-<digest hint>-<tag>`, all lower-case hex of fixed length.
pub(crate) fn issue_id(
    key: &ApprovalKey,
    purpose: Purpose,
    digest: &str,
    expires_at: SystemTime,
) -> String {
    let nonce = format!("{:0width$x}", fastrand::u64(..), width = NONCE_HEX);
    let expiry = format!("{:0width$x}", millis(expires_at), width = EXPIRY_HEX);
    let tag = key.tag(purpose, &nonce, &expiry, digest).finalize().into_bytes();
    let hint = digest.get(..DIGEST_HINT).unwrap_or(digest);
    format!("{}{nonce}-{expiry}-{hint}-{}", purpose.prefix(), hex(&tag[..TAG_BYTES]))
}

/// What a checked id says: what it answers and when it lapses.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Issued {
    pub(crate) purpose: Purpose,
    pub(crate) expires_at: SystemTime,
}

/// Checks that `answer` answers a request this key issued for a call with `digest`, and that
/// it has not lapsed; the error says what did not match.
pub(crate) fn check_id(key: &ApprovalKey, answer: &Answer, digest: &str) -> Result<Issued, String> {
    let id = answer.id.as_str();
    if id.is_empty() {
        return Err("the answer has an empty id".into());
    }
    let shown = clip(id, 96);
    let Some((purpose, parts)) = split(id) else {
        return Err(format!(
            "the answer's id {shown:?} is not an approval or a request this call asked for"
        ));
    };
    if !digest.starts_with(parts.hint) {
        return Err(format!(
            "the answer's id {shown:?} was issued for another call (other arguments, tool or call id)"
        ));
    }
    let tag = unhex(parts.tag);
    let verified =
        key.tag(purpose, parts.nonce, parts.expiry, digest).verify_truncated_left(&tag).is_ok();
    if !verified {
        return Err(format!("the answer's id {shown:?} was not issued by this registry"));
    }
    let expires_at = UNIX_EPOCH + Duration::from_millis(parse_hex(parts.expiry));
    if SystemTime::now() >= expires_at {
        return Err(format!("the answer's id {shown:?} expired at {}", rfc3339(expires_at)));
    }
    Ok(Issued { purpose, expires_at })
}

/// `time` as an RFC 3339 timestamp to the millisecond, as precise as the expiry an id
/// carries (a request that expires at `…:14.106Z` must not be stored as `…:14Z`, a second
/// early); times past the year 9999, which the format cannot show, are shown as its last
/// millisecond.
pub(crate) fn rfc3339(time: SystemTime) -> String {
    let latest = UNIX_EPOCH + Duration::from_millis(253_402_300_799_999);
    humantime::format_rfc3339_millis(time.min(latest)).to_string()
}

/// `time` in milliseconds since the Unix epoch, saturating.
fn millis(time: SystemTime) -> u64 {
    let since = time.duration_since(UNIX_EPOCH).unwrap_or_default();
    u64::try_from(since.as_millis()).unwrap_or(u64::MAX)
}

/// The parts of a keyed id.
struct Parts<'a> {
    nonce: &'a str,
    expiry: &'a str,
    hint: &'a str,
    tag: &'a str,
}

/// The purpose and parts of a keyed id, which has one spelling only: each part lower-case
/// hex of its exact length, separated by single dashes, nothing before or after.
fn split(id: &str) -> Option<(Purpose, Parts<'_>)> {
    let purpose = Purpose::of(id)?;
    let rest = id.strip_prefix(purpose.prefix())?;
    let mut fields = rest.split('-');
    let parts = Parts {
        nonce: fields.next()?,
        expiry: fields.next()?,
        hint: fields.next()?,
        tag: fields.next()?,
    };
    let lengths = [
        (parts.nonce, NONCE_HEX),
        (parts.expiry, EXPIRY_HEX),
        (parts.hint, DIGEST_HINT),
        (parts.tag, TAG_BYTES * 2),
    ];
    let strict = lengths.iter().all(|(part, len)| part.len() == *len && is_lower_hex(part));
    (fields.next().is_none() && strict).then_some((purpose, parts))
}

/// Whether every byte of `text` is `0-9` or `a-f`: no sign, no white space, no upper case.
fn is_lower_hex(text: &str) -> bool {
    text.bytes().all(|b| b.is_ascii_digit() || (b'a'..=b'f').contains(&b))
}

fn hex_value(byte: u8) -> u8 {
    match byte {
        b'0'..=b'9' => byte - b'0',
        _ => byte - b'a' + 10,
    }
}

/// The bytes of strict lower-case hex (checked by [`split`]).
fn unhex(text: &str) -> Vec<u8> {
    text.as_bytes().chunks(2).map(|pair| (hex_value(pair[0]) << 4) | hex_value(pair[1])).collect()
}

/// The number written in strict lower-case hex of at most 16 digits (checked by [`split`]).
fn parse_hex(text: &str) -> u64 {
    text.bytes().fold(0, |acc, b| (acc << 4) | u64::from(hex_value(b)))
}
