//! Cancellation: [`AbortController`] and [`AbortSignal`], after the DOM names.
//!
//! A controller fires its signal once, optionally with a reason. Signals are cheap to clone,
//! cheap to check (one atomic load, no lock) and can be awaited. They are built on
//! [`tokio_util::sync::CancellationToken`], which wakes the tasks awaiting a signal; a signal
//! converts from a token, and a child signal never fires its parent.

mod controller;
mod signal;

pub use controller::AbortController;
pub use signal::AbortSignal;

/// The text a failed result carries when a signal was aborted without a reason.
pub const DEFAULT_ABORT_REASON: &str = "Aborted";

/// The reason a call's signal carries once its deadline has passed.
pub(crate) fn deadline_reason(timeout: std::time::Duration) -> String {
    format!("timed out after {timeout:?}")
}
