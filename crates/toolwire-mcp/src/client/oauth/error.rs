//! [`OAuthError`]: a login that failed, said without its tokens.

use std::fmt;

/// What kind of failure an [`OAuthError`] reports. New kinds may be added.
#[non_exhaustive]
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum OAuthErrorKind {
    /// The server or its authorization server publishes metadata toolwire refuses: plain
    /// HTTP off loopback, an endpoint on another host, a resource or issuer that does not
    /// match.
    Refused,
    /// Discovery, registration, the authorization or the token exchange failed.
    Flow,
    /// The redirect did not come back, or came back with an error, a wrong `state` or a
    /// wrong `iss`.
    Redirect,
    /// The login could not be read or written.
    Store,
}

/// A login that failed. Its message says what and where, and never holds a token.
#[derive(Debug, Clone)]
pub struct OAuthError {
    kind: OAuthErrorKind,
    detail: String,
}

impl OAuthError {
    pub(crate) fn new(kind: OAuthErrorKind, detail: impl Into<String>) -> Self {
        Self { kind, detail: detail.into() }
    }

    pub(crate) fn refused(detail: impl Into<String>) -> Self {
        Self::new(OAuthErrorKind::Refused, detail)
    }

    pub(crate) fn flow(detail: impl Into<String>) -> Self {
        Self::new(OAuthErrorKind::Flow, detail)
    }

    pub(crate) fn store(detail: impl Into<String>) -> Self {
        Self::new(OAuthErrorKind::Store, detail)
    }

    /// What kind of failure this is.
    pub fn kind(&self) -> OAuthErrorKind {
        self.kind
    }
}

impl fmt::Display for OAuthError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.detail)
    }
}

impl std::error::Error for OAuthError {}
