//! [`AbortSignal`]: the side that is told to stop.

use std::fmt;
use std::future::Future;
use std::sync::atomic::{AtomicBool, Ordering, fence};
use std::sync::{Arc, OnceLock};
use std::time::Duration;

use tokio::time::Instant;
use tokio_util::sync::CancellationToken;

use super::DEFAULT_ABORT_REASON;

/// Tells whether, and why, an operation was cancelled.
///
/// The default signal never fires and costs nothing to create. Handlers always receive a
/// signal through [`ToolContext::signal`](crate::ToolContext::signal); during a call with a
/// timeout, that signal also reports aborted once the deadline has passed.
///
/// ```
/// # #[tokio::main(flavor = "current_thread")] async fn main() {
/// use toolwire::AbortController;
///
/// let ctl = AbortController::new();
/// let signal = ctl.signal();
/// let waiter = tokio::spawn(async move {
///     signal.aborted().await;
///     signal.reason().map(str::to_owned)
/// });
/// ctl.abort_with("stop");
/// assert_eq!(waiter.await.unwrap().as_deref(), Some("stop"));
/// # }
/// ```
#[derive(Clone, Default)]
pub struct AbortSignal {
    /// `None` is the signal that never fires.
    inner: Option<Arc<Inner>>,
}

/// The shared state of one signal.
struct Inner {
    /// Set, after `reason`, when this signal's own controller fires it.
    fired: AtomicBool,
    /// Set once, by the first firing of this very signal: `Some(None)` means "no reason".
    reason: OnceLock<Option<Box<str>>>,
    /// Wakes the tasks awaiting the signal; made on the first `aborted()` call, as a child of
    /// the parent's token, so signals nobody awaits cost no token.
    token: OnceLock<CancellationToken>,
    /// The token came from outside and may be cancelled without `fired` being set.
    external: bool,
    /// The signal this one follows, if any; its reason applies when it fired first.
    parent: Option<AbortSignal>,
    /// From this instant on the signal counts as fired, for the given timeout.
    deadline: Option<(Instant, Duration)>,
}

impl AbortSignal {
    /// A signal that never fires.
    pub const fn never() -> Self {
        Self { inner: None }
    }

    /// A new signal, following `parent` if given, with an optional deadline.
    pub(super) fn fresh(
        parent: Option<&AbortSignal>,
        deadline: Option<(Instant, Duration)>,
    ) -> Self {
        let parent = parent.filter(|p| p.can_fire()).cloned();
        Self::from_inner(OnceLock::new(), false, parent, deadline)
    }

    fn from_inner(
        token: OnceLock<CancellationToken>,
        external: bool,
        parent: Option<AbortSignal>,
        deadline: Option<(Instant, Duration)>,
    ) -> Self {
        let fired = AtomicBool::new(false);
        let inner = Inner { fired, reason: OnceLock::new(), token, external, parent, deadline };
        Self { inner: Some(Arc::new(inner)) }
    }

    /// Fires this signal, unless it has fired already (perhaps through its parent): the first
    /// reason stands.
    pub(super) fn fire(&self, reason: Option<Box<str>>) {
        let Some(inner) = &self.inner else { return };
        if self.fired_without_deadline() {
            return;
        }
        // The reason is stored before the flag, so whoever sees the flag sees the reason. The
        // fence protocol with `aborted` is model-checked with loom in tests/signal_model.rs.
        if inner.reason.set(reason).is_ok() {
            inner.fired.store(true, Ordering::SeqCst);
            // Pairs with the fence in `aborted`: either this sees the waiter's token and
            // cancels it, or the waiter sees the flag and does not wait.
            fence(Ordering::SeqCst);
            if let Some(token) = inner.token.get() {
                token.cancel();
            }
        }
    }

    /// Whether the signal has fired: its own controller fired it, its parent fired, its token
    /// was cancelled from outside, or its deadline passed. Takes no lock.
    pub fn is_aborted(&self) -> bool {
        self.fired_without_deadline() || self.deadline_passed()
    }

    /// Whether the signal fired by any means but its own deadline.
    fn fired_without_deadline(&self) -> bool {
        let Some(inner) = &self.inner else {
            return false;
        };
        inner.fired.load(Ordering::SeqCst)
            || inner.parent.as_ref().is_some_and(AbortSignal::is_aborted)
            || (inner.external && inner.token.get().is_some_and(CancellationToken::is_cancelled))
    }

    /// Fires the signal if its deadline has passed; tells whether it had.
    fn deadline_passed(&self) -> bool {
        let Some((at, timeout)) = self.inner.as_ref().and_then(|inner| inner.deadline) else {
            return false;
        };
        if Instant::now() < at {
            return false;
        }
        self.fire(Some(super::deadline_reason(timeout).into_boxed_str()));
        true
    }

    /// The reason the signal fired with, if it fired with one.
    ///
    /// A child signal fired by its parent reports the parent's reason; a signal whose deadline
    /// passed reports `timed out after ..`.
    pub fn reason(&self) -> Option<&str> {
        let inner = self.inner.as_ref()?;
        if let Some(own) = inner.reason.get() {
            return own.as_deref();
        }
        if let Some(parent) = inner.parent.as_ref().filter(|p| p.is_aborted()) {
            return parent.reason();
        }
        if self.deadline_passed() {
            return inner.reason.get().and_then(Option::as_deref);
        }
        None
    }

    /// The text of the result of a call aborted through this signal: the reason, or
    /// [`DEFAULT_ABORT_REASON`].
    pub fn reason_or_default(&self) -> &str {
        self.reason().unwrap_or(DEFAULT_ABORT_REASON)
    }

    /// Completes when the signal fires; never, for [`AbortSignal::never`].
    ///
    /// A deadline wakes the waiters of a call's signal when the call's own future notices it,
    /// which it does on time for async handlers.
    ///
    /// # Cancel safety
    ///
    /// The future holds no state beyond its registration, so dropping it and calling
    /// `aborted()` again loses nothing.
    pub fn aborted(&self) -> impl Future<Output = ()> + Send + 'static {
        let token = self.waiter_token();
        fence(Ordering::SeqCst); // pairs with the fence in `fire`
        let fired = self.is_aborted();
        async move {
            match token {
                _ if fired => {}
                Some(token) => token.cancelled_owned().await,
                None => std::future::pending().await,
            }
        }
    }

    /// This signal's token, made on first use as a child of its parent's.
    fn waiter_token(&self) -> Option<CancellationToken> {
        let inner = self.inner.as_ref()?;
        let token = inner.token.get_or_init(|| {
            match inner.parent.as_ref().and_then(AbortSignal::waiter_token) {
                Some(parent) => parent.child_token(),
                None => CancellationToken::new(),
            }
        });
        Some(token.clone())
    }

    /// Whether this signal can ever fire.
    pub(crate) fn can_fire(&self) -> bool {
        self.inner.is_some()
    }
}

impl From<CancellationToken> for AbortSignal {
    /// Wraps a token: the signal fires, with no reason, when the token is cancelled.
    fn from(token: CancellationToken) -> Self {
        Self::from_inner(OnceLock::from(token), true, None, None)
    }
}

impl fmt::Debug for AbortSignal {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("AbortSignal")
            .field("aborted", &self.is_aborted())
            .field("reason", &self.reason())
            .finish()
    }
}
