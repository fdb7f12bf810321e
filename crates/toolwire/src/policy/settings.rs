//! A registry's approval settings: the key ids are made with, the store spent ones go to, and
//! how long an approval stays good.

use std::time::{Duration, SystemTime};

use super::binding::{ApprovalKey, Purpose, issue_id, rfc3339};
use super::spent::Spender;
use crate::record::Request;

/// How long an approval (or a bound request of a handler) stays good by default: one hour.
pub const DEFAULT_APPROVAL_TTL: Duration = Duration::from_secs(60 * 60);

/// What a registry binds and spends approvals with.
#[derive(Debug, Clone)]
pub(crate) struct Approvals {
    pub(crate) key: ApprovalKey,
    pub(crate) store: Spender,
    pub(crate) ttl: Duration,
}

impl Approvals {
    /// The settings of calls made outside a registry: the process's key and store.
    pub(crate) fn process() -> &'static Approvals {
        static PROCESS: std::sync::OnceLock<Approvals> = std::sync::OnceLock::new();
        PROCESS.get_or_init(|| Approvals {
            key: *ApprovalKey::process(),
            store: Spender::process().clone(),
            ttl: DEFAULT_APPROVAL_TTL,
        })
    }

    /// `request`, bound to the call with `digest`: a fresh keyed id of `purpose`, the digest,
    /// and an expiry. A request that already says when it lapses keeps that time, when it
    /// reads as RFC 3339; any other gets the settings' time to live.
    pub(crate) fn bind(&self, mut request: Request, purpose: Purpose, digest: String) -> Request {
        let own = request.expires_at.as_deref().and_then(|at| humantime::parse_rfc3339(at).ok());
        let expires_at = own.unwrap_or_else(|| {
            let now = SystemTime::now();
            now.checked_add(self.ttl).unwrap_or(now)
        });
        request.id = issue_id(&self.key, purpose, &digest, expires_at);
        request.expires_at = Some(rfc3339(expires_at));
        request.digest = Some(digest);
        request
    }
}
