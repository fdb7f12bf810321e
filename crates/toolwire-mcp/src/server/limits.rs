//! How many calls may run at once, per session and in total.

use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};

/// Limits on concurrent `tools/call`s. A call past a limit is refused at once with an
/// `isError` result saying which limit, so a burst cannot queue without bound. It is
/// `#[non_exhaustive]`: build one with [`new`](Self::new), or change the default.
///
/// ```
/// use toolwire_mcp::server::CallLimits;
///
/// let limits = CallLimits::new(8, 256);
/// assert_eq!((limits.per_session, limits.total), (8, 256));
/// assert_eq!(CallLimits::default(), CallLimits::new(64, 1024));
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[non_exhaustive]
pub struct CallLimits {
    /// Calls one session may have running at once. Default: 64.
    pub per_session: usize,
    /// Calls all sessions together may have running at once. Default: 1,024.
    pub total: usize,
}

impl CallLimits {
    /// At most `per_session` calls per session, and `total` in all.
    pub fn new(per_session: usize, total: usize) -> Self {
        Self { per_session, total }
    }
}

impl Default for CallLimits {
    fn default() -> Self {
        Self::new(64, 1024)
    }
}

/// How many calls hold one limit's places, and how many places it has. A call that finds
/// no free place is refused, never queued, so taking and giving back a place is one atomic
/// operation each: no lock, which a semaphore's release would take on every call.
#[derive(Debug)]
pub(crate) struct Places {
    taken: AtomicUsize,
    limit: usize,
}

impl Places {
    /// `limit` places; at least one.
    pub(crate) fn new(limit: usize) -> Arc<Self> {
        Arc::new(Self { taken: AtomicUsize::new(0), limit: limit.max(1) })
    }

    /// How many places are taken now.
    pub(crate) fn taken(&self) -> usize {
        self.taken.load(Ordering::Relaxed)
    }

    /// A place, unless all are taken.
    fn take(self: &Arc<Self>) -> Option<Place> {
        let limit = self.limit;
        self.taken
            .fetch_update(Ordering::Acquire, Ordering::Relaxed, |n| (n < limit).then_some(n + 1))
            .ok()
            .map(|_| Place(Arc::clone(self)))
    }
}

/// One place, given back when dropped.
#[derive(Debug)]
struct Place(Arc<Places>);

impl Drop for Place {
    fn drop(&mut self) {
        self.0.taken.fetch_sub(1, Ordering::Release);
    }
}

/// The limits, with the places every session shares.
#[derive(Debug, Clone)]
pub(crate) struct Limits {
    pub(crate) config: CallLimits,
    pub(crate) total: Arc<Places>,
}

impl Limits {
    pub(crate) fn new(config: CallLimits) -> Self {
        Self { config, total: Places::new(config.total) }
    }
}

/// The places a running call holds.
#[derive(Debug)]
pub(crate) struct Permits {
    _session: Place,
    _total: Place,
}

/// Takes a place in the session's limit and one in the total; the error says which limit
/// was reached.
pub(crate) fn admit(session: &Arc<Places>, limits: &Limits) -> Result<Permits, String> {
    let session_place = session.take().ok_or_else(|| {
        format!(
            "too many calls running in this session (the limit is {}); try again when one finishes",
            limits.config.per_session
        )
    })?;
    let total_place = limits.total.take().ok_or_else(|| {
        format!(
            "too many calls running on this server (the limit is {}); try again later",
            limits.config.total
        )
    })?;
    Ok(Permits { _session: session_place, _total: total_place })
}
