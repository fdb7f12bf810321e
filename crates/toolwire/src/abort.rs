//! Cancellation: [`AbortController`] and [`AbortSignal`], after the DOM names.
//!
//! A controller fires its signal once, optionally with a reason. Signals are cheap to clone
//! and can be awaited. They are built on [`tokio_util::sync::CancellationToken`], so a signal
//! converts from a token and a child signal never fires its parent.

use std::fmt;
use std::future::Future;
use std::sync::{Arc, OnceLock};

use tokio_util::sync::CancellationToken;

/// The text a failed result carries when a signal was aborted without a reason.
pub const DEFAULT_ABORT_REASON: &str = "Aborted";

/// The shared state of one signal.
struct SignalInner {
    token: CancellationToken,
    /// Set once, by the first abort of this very signal: `Some(None)` means "no reason".
    reason: OnceLock<Option<Box<str>>>,
    /// The signal this one follows, if any; its reason applies when it fired this one.
    parent: Option<AbortSignal>,
}

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
#[derive(Clone, Default)]
pub struct AbortController {
    signal: AbortSignal,
}

impl AbortController {
    /// A controller whose signal has not fired.
    pub fn new() -> Self {
        Self::from_parts(CancellationToken::new(), None)
    }

    /// A controller whose signal also fires, with the parent's reason, when `parent` fires.
    ///
    /// Aborting the child never aborts the parent.
    pub fn with_parent(parent: &AbortSignal) -> Self {
        match &parent.inner {
            Some(inner) => Self::from_parts(inner.token.child_token(), Some(parent.clone())),
            None => Self::new(),
        }
    }

    fn from_parts(token: CancellationToken, parent: Option<AbortSignal>) -> Self {
        let inner = SignalInner {
            token,
            reason: OnceLock::new(),
            parent,
        };
        Self {
            signal: AbortSignal {
                inner: Some(Arc::new(inner)),
            },
        }
    }

    /// The signal this controller fires. Every call returns a clone of the same signal.
    pub fn signal(&self) -> AbortSignal {
        self.signal.clone()
    }

    /// Fires the signal with no reason: results read [`DEFAULT_ABORT_REASON`].
    ///
    /// Only the first abort counts; later ones change nothing.
    pub fn abort(&self) {
        self.fire(None);
    }

    /// Fires the signal with `reason`, which becomes the text of the aborted result.
    ///
    /// Only the first abort counts; later ones change nothing.
    pub fn abort_with(&self, reason: impl Into<String>) {
        self.fire(Some(reason.into().into_boxed_str()));
    }

    fn fire(&self, reason: Option<Box<str>>) {
        if let Some(inner) = &self.signal.inner {
            if inner.token.is_cancelled() {
                return; // already fired, perhaps by a parent: the first reason stands
            }
            // The reason is stored before the token fires, so whoever sees the abort sees it.
            if inner.reason.set(reason).is_ok() {
                inner.token.cancel();
            }
        }
    }
}

impl fmt::Debug for AbortController {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("AbortController")
            .field("signal", &self.signal)
            .finish()
    }
}

/// Tells whether, and why, an operation was cancelled.
///
/// The default signal never fires and costs nothing to create. Handlers always receive a
/// signal through [`ToolContext::signal`](crate::ToolContext::signal).
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
    inner: Option<Arc<SignalInner>>,
}

impl AbortSignal {
    /// A signal that never fires.
    pub const fn never() -> Self {
        Self { inner: None }
    }

    /// Whether the signal has fired.
    pub fn is_aborted(&self) -> bool {
        self.inner
            .as_ref()
            .is_some_and(|inner| inner.token.is_cancelled())
    }

    /// The reason given to [`AbortController::abort_with`], if the signal fired with one.
    ///
    /// A child signal fired by its parent reports the parent's reason.
    pub fn reason(&self) -> Option<&str> {
        let inner = self.inner.as_ref()?;
        match inner.reason.get() {
            Some(own) => own.as_deref(),
            None => inner.parent.as_ref().and_then(AbortSignal::reason),
        }
    }

    /// The text of the result of a call aborted through this signal: the reason, or
    /// [`DEFAULT_ABORT_REASON`].
    pub fn reason_or_default(&self) -> &str {
        self.reason().unwrap_or(DEFAULT_ABORT_REASON)
    }

    /// Completes when the signal fires; never, for [`AbortSignal::never`].
    ///
    /// Cancel safety: the future holds no state beyond its registration, so dropping it and
    /// calling `aborted()` again loses nothing.
    pub fn aborted(&self) -> impl Future<Output = ()> + Send + 'static {
        let token = self.inner.as_ref().map(|inner| inner.token.clone());
        async move {
            match token {
                Some(token) => token.cancelled_owned().await,
                None => std::future::pending().await,
            }
        }
    }

    /// Whether this signal can ever fire.
    pub(crate) fn can_fire(&self) -> bool {
        self.inner.is_some()
    }
}

impl From<CancellationToken> for AbortSignal {
    /// Wraps a token: the signal fires, with no reason, when the token is cancelled.
    fn from(token: CancellationToken) -> Self {
        AbortController::from_parts(token, None).signal
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
