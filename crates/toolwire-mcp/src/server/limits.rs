//! How many calls may run at once, per session and in total.

use std::sync::Arc;

use tokio::sync::{OwnedSemaphorePermit, Semaphore};

/// Limits on concurrent `tools/call`s. A call past a limit is refused at once with an
/// `isError` result saying which limit, so a burst cannot queue without bound.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct CallLimits {
    /// Calls one session may have running at once. Default: 64.
    pub per_session: usize,
    /// Calls all sessions together may have running at once. Default: 1,024.
    pub total: usize,
}

impl Default for CallLimits {
    fn default() -> Self {
        Self { per_session: 64, total: 1024 }
    }
}

/// The limits, with the semaphore every session shares.
#[derive(Debug, Clone)]
pub(crate) struct Limits {
    pub(crate) config: CallLimits,
    pub(crate) total: Arc<Semaphore>,
}

impl Limits {
    pub(crate) fn new(config: CallLimits) -> Self {
        let total = Arc::new(Semaphore::new(config.total.clamp(1, Semaphore::MAX_PERMITS)));
        Self { config, total }
    }
}

/// The permits a running call holds.
#[derive(Debug)]
pub(crate) struct Permits {
    _session: OwnedSemaphorePermit,
    _total: OwnedSemaphorePermit,
}

/// Takes a permit from the session's semaphore and one from the total; the error says which
/// limit was reached.
pub(crate) fn admit(session: &Arc<Semaphore>, limits: &Limits) -> Result<Permits, String> {
    let session_permit = Arc::clone(session).try_acquire_owned().map_err(|_| {
        format!(
            "too many calls running in this session (the limit is {}); try again when one finishes",
            limits.config.per_session
        )
    })?;
    let total_permit = Arc::clone(&limits.total).try_acquire_owned().map_err(|_| {
        format!(
            "too many calls running on this server (the limit is {}); try again later",
            limits.config.total
        )
    })?;
    Ok(Permits { _session: session_permit, _total: total_permit })
}
