//! [`AbortController`]: the side that fires a signal.

use std::fmt;
use std::time::Duration;

use tokio::time::Instant;

use super::signal::AbortSignal;

/// Fires an [`AbortSignal`], once.
///
/// Dropping a controller does not abort its signal.
///
/// ```
/// use toolwire::AbortController;
///
/// let ctl = AbortController::new();
/// let signal = ctl.signal();
/// assert!(!signal.is_aborted());
/// ctl.abort_with("User cancelled");
/// assert!(signal.is_aborted());
/// assert_eq!(signal.reason(), Some("User cancelled"));
/// ```
#[derive(Clone)]
pub struct AbortController {
    signal: AbortSignal,
}

impl AbortController {
    /// A controller whose signal has not fired.
    pub fn new() -> Self {
        Self { signal: AbortSignal::fresh(None, None) }
    }

    /// A controller whose signal also fires, with the parent's reason, when `parent` fires.
    ///
    /// Aborting the child never aborts the parent.
    pub fn with_parent(parent: &AbortSignal) -> Self {
        Self { signal: AbortSignal::fresh(Some(parent), None) }
    }

    /// A child of `parent` that also counts as aborted from `at` on, with the reason
    /// `timed out after {timeout:?}`.
    pub(crate) fn with_deadline(parent: &AbortSignal, at: Instant, timeout: Duration) -> Self {
        Self { signal: AbortSignal::fresh(Some(parent), Some((at, timeout))) }
    }

    /// The signal this controller fires. Every call returns a clone of the same signal.
    pub fn signal(&self) -> AbortSignal {
        self.signal.clone()
    }

    /// Fires the signal with no reason: results read
    /// [`DEFAULT_ABORT_REASON`](super::DEFAULT_ABORT_REASON).
    ///
    /// Only the first abort counts; later ones change nothing.
    pub fn abort(&self) {
        self.signal.fire(None);
    }

    /// Fires the signal with `reason`, which becomes the text of the aborted result.
    ///
    /// Only the first abort counts; later ones change nothing.
    pub fn abort_with(&self, reason: impl Into<String>) {
        self.signal.fire(Some(reason.into().into_boxed_str()));
    }
}

impl Default for AbortController {
    fn default() -> Self {
        Self::new()
    }
}

impl fmt::Debug for AbortController {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("AbortController").field("signal", &self.signal).finish()
    }
}
