//! The `requestState` of MCP 2026-07-28: what a call that waits for input needs on its retry,
//! sealed with the registry's key, so a client can echo it but not change it.
//!
//! A state is `tws1.<payload>.<tag>`: the payload is JSON in base64url, and the tag the
//! registry key's HMAC over it ([`ApprovalKey::sign`]). It binds the retry to the tool, the
//! call's digest (the tool, the canonical arguments and the call id), the client's principal
//! when the transport knows one, the request it answers, and an expiry. It is spent once, in
//! the registry's approval store, when the retry starts.

use std::time::{Duration, SystemTime, UNIX_EPOCH};

use base64::Engine;
use base64::engine::general_purpose::URL_SAFE_NO_PAD;
use serde::{Deserialize, Serialize};
use toolwire::policy::{ApprovalKey, SpentApproval};

/// What the tag's HMAC is keyed for: no other use of the key makes the same tags.
const DOMAIN: &str = "toolwire-mcp/request-state/v1";
/// The prefix of every state, with its format's version.
const PREFIX: &str = "tws1.";
/// The longest state accepted: far above any state this server makes.
const MAX_LEN: usize = 8 * 1024;

/// How long a call waits for the client's answer by default: ten minutes.
pub const DEFAULT_REQUEST_STATE_TTL: Duration = Duration::from_secs(10 * 60);

/// A state's contents.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub(crate) struct RequestState {
    /// The tool called.
    #[serde(rename = "t")]
    pub(crate) tool: String,
    /// The call id the first round ran with; every retry runs with it, so the request's
    /// keyed id still matches.
    #[serde(rename = "c")]
    pub(crate) call_id: String,
    /// The digest of the call ([`toolwire::policy::call_digest`]).
    #[serde(rename = "d")]
    pub(crate) digest: String,
    /// The id of the pending request the retry answers.
    #[serde(rename = "r")]
    pub(crate) request_id: String,
    /// The `inputRequests` keys asked.
    #[serde(rename = "k")]
    pub(crate) keys: Vec<String>,
    /// Whether the request was MCP `inputRequests` passed through, whose answer is the
    /// responses to all its keys.
    #[serde(rename = "m", default)]
    pub(crate) passthrough: bool,
    /// The keyed hash of the client's credentials, when the transport had one.
    #[serde(rename = "p", default, skip_serializing_if = "Option::is_none")]
    pub(crate) principal: Option<String>,
    /// When it lapses, in milliseconds since the Unix epoch.
    #[serde(rename = "e")]
    pub(crate) expires_ms: u64,
    /// Random, so every state (and so every spend) is unique.
    #[serde(rename = "n")]
    pub(crate) nonce: String,
}

/// Why a state was refused. Each is answered with a JSON-RPC error, and nothing runs.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum StateError {
    /// Not a state this server makes, or changed since (the tag does not match).
    Forged,
    /// Its time to live has passed.
    Expired,
    /// Made for another tool, other arguments or another client.
    Foreign(&'static str),
}

impl std::fmt::Display for StateError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Self::Forged => f.write_str("the requestState failed its integrity check"),
            Self::Expired => f.write_str("the requestState has expired; call the tool again"),
            Self::Foreign(what) => write!(f, "the requestState was issued for {what}"),
        }
    }
}

impl RequestState {
    /// A fresh state for the request `request_id`, asked under `keys`, lapsing after `ttl`.
    /// (The request's own id lapses too, and the registry refuses an answer after that.)
    pub(crate) fn new(
        call: Binding<'_>,
        request_id: &str,
        keys: Vec<String>,
        passthrough: bool,
        ttl: Duration,
    ) -> Self {
        let now = SystemTime::now();
        let expires = now.checked_add(ttl).unwrap_or(now);
        Self {
            tool: call.tool.to_owned(),
            call_id: call.call_id.to_owned(),
            digest: call.digest.to_owned(),
            request_id: request_id.to_owned(),
            keys,
            passthrough,
            principal: call.principal.map(str::to_owned),
            expires_ms: millis(expires),
            nonce: nonce(),
        }
    }

    /// The state as text, sealed with `key`.
    pub(crate) fn seal(&self, key: &ApprovalKey) -> String {
        // A struct of strings always serializes.
        let json = serde_json::to_vec(self).unwrap_or_default();
        let payload = URL_SAFE_NO_PAD.encode(json);
        let tag = URL_SAFE_NO_PAD.encode(key.sign(DOMAIN, payload.as_bytes()));
        format!("{PREFIX}{payload}.{tag}")
    }

    /// The state in `text`, if `key` sealed it and it has not lapsed.
    pub(crate) fn open(key: &ApprovalKey, text: &str) -> Result<Self, StateError> {
        if text.len() > MAX_LEN {
            return Err(StateError::Forged);
        }
        let sealed = text.strip_prefix(PREFIX).ok_or(StateError::Forged)?;
        let (payload, tag) = sealed.split_once('.').ok_or(StateError::Forged)?;
        let tag = URL_SAFE_NO_PAD.decode(tag).map_err(|_| StateError::Forged)?;
        if !key.verify(DOMAIN, payload.as_bytes(), &tag) {
            return Err(StateError::Forged);
        }
        let json = URL_SAFE_NO_PAD.decode(payload).map_err(|_| StateError::Forged)?;
        let state: Self = serde_json::from_slice(&json).map_err(|_| StateError::Forged)?;
        if state.expires_ms <= millis(SystemTime::now()) {
            return Err(StateError::Expired);
        }
        Ok(state)
    }

    /// Checks that the state was made for this `call`.
    pub(crate) fn check(&self, call: Binding<'_>) -> Result<(), StateError> {
        if self.tool != call.tool {
            return Err(StateError::Foreign("another tool"));
        }
        if self.principal.as_deref() != call.principal {
            return Err(StateError::Foreign("another client"));
        }
        if self.digest != call.digest {
            return Err(StateError::Foreign("other arguments"));
        }
        Ok(())
    }

    /// The state as an entry of the registry's approval store, so it is spent once.
    pub(crate) fn spent(&self) -> SpentApproval {
        let expires_at = UNIX_EPOCH + Duration::from_millis(self.expires_ms);
        SpentApproval::new(format!("mcp-state-{}", self.nonce), self.digest.clone(), expires_at)
    }
}

/// What a state is bound to: the call, and the client who made it.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Binding<'a> {
    pub(crate) tool: &'a str,
    pub(crate) call_id: &'a str,
    pub(crate) digest: &'a str,
    pub(crate) principal: Option<&'a str>,
}

fn millis(time: SystemTime) -> u64 {
    let since = time.duration_since(UNIX_EPOCH).unwrap_or_default();
    u64::try_from(since.as_millis()).unwrap_or(u64::MAX)
}

/// 16 random bytes in hex: every state (and every fresh call id) is unique.
pub(crate) fn nonce() -> String {
    let mut bytes = [0u8; 16];
    if getrandom::fill(&mut bytes).is_err() {
        // No OS generator: the clock's nanoseconds still differ between states.
        let nanos = SystemTime::now().duration_since(UNIX_EPOCH).unwrap_or_default().as_nanos();
        bytes = nanos.to_le_bytes();
    }
    hex(&bytes)
}

/// `bytes` in lower-case hex.
pub(crate) fn hex(bytes: &[u8]) -> String {
    const DIGITS: &[u8; 16] = b"0123456789abcdef";
    let mut text = String::with_capacity(bytes.len() * 2);
    for byte in bytes {
        text.push(char::from(DIGITS[usize::from(byte >> 4)]));
        text.push(char::from(DIGITS[usize::from(byte & 0xf)]));
    }
    text
}

#[cfg(test)]
mod tests {
    use super::*;

    fn call() -> Binding<'static> {
        Binding { tool: "t", call_id: "c", digest: "d", principal: Some("p") }
    }

    #[test]
    fn a_sealed_state_opens_and_any_changed_byte_does_not() {
        let key = ApprovalKey::from_bytes([7; 32]);
        let ttl = Duration::from_secs(60);
        let state = RequestState::new(call(), "inp-x", vec!["input".into()], false, ttl);
        let sealed = state.seal(&key);
        assert_eq!(RequestState::open(&key, &sealed), Ok(state));
        let mut bytes = sealed.clone().into_bytes();
        for i in PREFIX.len()..bytes.len() {
            let original = bytes[i];
            bytes[i] = if original == b'A' { b'B' } else { b'A' };
            let changed = String::from_utf8(bytes.clone()).unwrap_or_default();
            if changed != sealed {
                assert!(RequestState::open(&key, &changed).is_err(), "byte {i} changed");
            }
            bytes[i] = original;
        }
        let other = ApprovalKey::from_bytes([8; 32]);
        assert_eq!(RequestState::open(&other, &sealed), Err(StateError::Forged));
    }

    #[test]
    fn a_lapsed_state_is_refused() {
        let key = ApprovalKey::from_bytes([7; 32]);
        let state = RequestState::new(call(), "inp-x", vec![], false, Duration::ZERO);
        assert_eq!(RequestState::open(&key, &state.seal(&key)), Err(StateError::Expired));
    }
}
