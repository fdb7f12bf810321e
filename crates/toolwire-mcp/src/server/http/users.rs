//! [`Users`]: the named clients of an HTTP server, each known by a bearer token of its own.

use std::fmt;
use std::sync::Arc;

use sha2::{Digest, Sha256};
use subtle::ConstantTimeEq;

/// The named clients of an HTTP server: each name with the SHA-256 of its bearer token.
///
/// A request whose `Authorization: Bearer <token>` hashes to one of them is that client's:
/// its calls run with [`Principal::client`](toolwire::Principal::client) of that name, which a
/// policy reads and the receipt records. The name comes only from the token: never from a
/// header, an argument or `_meta` the client sends. Tokens are kept hashed, and every entry
/// is compared, in constant time, for every request.
///
/// ```
/// use toolwire_mcp::server::Users;
///
/// let users = Users::new().add("ci-bot", "s3cret-token").add("ada", "another-token");
/// assert_eq!(users.verify("s3cret-token"), Some("ci-bot"));
/// assert_eq!(users.verify("wrong"), None);
/// ```
#[derive(Clone, Default, PartialEq, Eq)]
pub struct Users {
    entries: Vec<(Arc<str>, [u8; 32])>,
}

/// A user entry that cannot be read.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct UsersError(String);

impl fmt::Display for UsersError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}

impl std::error::Error for UsersError {}

impl Users {
    /// No users.
    pub fn new() -> Self {
        Self::default()
    }

    /// Adds `name`, known by `token` (kept only as its SHA-256).
    pub fn add(mut self, name: impl Into<Arc<str>>, token: &str) -> Self {
        self.entries.push((name.into(), hash(token)));
        self
    }

    /// Adds `name`, known by the token whose SHA-256 is `sha256_hex` (64 hex digits).
    ///
    /// # Errors
    ///
    /// A hash that is not 64 hex digits, or a name that is empty or taken.
    pub fn add_hashed(
        mut self,
        name: impl Into<Arc<str>>,
        sha256_hex: &str,
    ) -> Result<Self, UsersError> {
        let name = name.into();
        if name.is_empty() {
            return Err(UsersError("a user has an empty name".into()));
        }
        if self.entries.iter().any(|(taken, _)| *taken == name) {
            return Err(UsersError(format!("the user {name:?} is listed twice")));
        }
        let digest = parse_hex(sha256_hex).ok_or_else(|| {
            UsersError(format!("the token hash of {name:?} is not 64 hex digits"))
        })?;
        if self.entries.iter().any(|(_, taken)| *taken == digest) {
            return Err(UsersError(format!("the user {name:?} has another user's token")));
        }
        self.entries.push((name, digest));
        Ok(self)
    }

    /// The name of the user whose token is `token`, if any. Every entry is compared, in
    /// constant time.
    pub fn verify(&self, token: &str) -> Option<&str> {
        let given = hash(token);
        let mut found = None;
        for (name, digest) in &self.entries {
            let same: bool = digest.ct_eq(&given).into();
            if same && found.is_none() {
                found = Some(&**name);
            }
        }
        found
    }

    /// The users' names, in the order they were added.
    pub fn names(&self) -> impl Iterator<Item = &str> {
        self.entries.iter().map(|(name, _)| &**name)
    }

    /// Whether there are none.
    pub fn is_empty(&self) -> bool {
        self.entries.is_empty()
    }
}

impl fmt::Debug for Users {
    /// The names only: the hashes stay out of logs.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Users").field("names", &self.names().collect::<Vec<_>>()).finish()
    }
}

/// The SHA-256 of `token`, as lower-case hex: what a users file keeps.
pub fn token_sha256(token: &str) -> String {
    hash(token).iter().map(|byte| format!("{byte:02x}")).collect()
}

fn hash(token: &str) -> [u8; 32] {
    Sha256::digest(token.as_bytes()).into()
}

fn parse_hex(text: &str) -> Option<[u8; 32]> {
    let bytes = text.as_bytes();
    if bytes.len() != 64 {
        return None;
    }
    let mut out = [0u8; 32];
    for (i, pair) in bytes.chunks(2).enumerate() {
        let digit = |c: u8| (c as char).to_digit(16);
        out[i] = u8::try_from(digit(pair[0])? * 16 + digit(pair[1])?).ok()?;
    }
    Some(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn hashed_entries_verify_and_bad_ones_are_refused() {
        let users = Users::new().add_hashed("ci", &token_sha256("t1")).unwrap();
        assert_eq!(users.verify("t1"), Some("ci"));
        assert_eq!(users.verify("t1 "), None);
        assert!(Users::new().add_hashed("x", "abc").is_err());
        assert!(Users::new().add_hashed("", &token_sha256("t")).is_err());
        assert!(users.clone().add_hashed("ci", &token_sha256("t2")).is_err());
        assert!(users.clone().add_hashed("other", &token_sha256("t1")).is_err());
        assert!(!format!("{users:?}").contains(&token_sha256("t1")));
    }
}
