//! A loom model of `AbortSignal`'s hand-written fences (src/abort/signal.rs), checked over
//! every interleaving loom explores.
//!
//! The signal keeps its hot path lock-free: `is_aborted` is one atomic load. Waking waiters
//! goes through a `CancellationToken` made only when someone first awaits the signal. Two
//! threads race: `fire` stores the reason, sets the flag, fences, and cancels the token if one
//! exists; `aborted()` makes the token, fences, and reads the flag. The fences (both `SeqCst`)
//! must guarantee that at least one side sees the other: either the waiter sees the flag and
//! does not wait, or the firer sees the token and cancels it. Otherwise a waiter could sleep
//! forever on a fired signal. The model mirrors those steps with loom's atomics; the token and
//! the once-set reason are modelled by the orderings the real types give (`OnceLock` publishes
//! with release and reads with acquire, `CancellationToken::cancel` is seen by later waits).

use loom::sync::Arc;
use loom::sync::atomic::{AtomicBool, AtomicUsize, Ordering, fence};
use loom::thread;

/// The parts of one signal the protocol touches.
#[derive(Default)]
struct Model {
    /// `Inner::reason`: 0 unset, 1 set (a `OnceLock`, so release on set, acquire on get).
    reason: AtomicUsize,
    /// `Inner::fired`.
    fired: AtomicBool,
    /// `Inner::token`: whether a waiter's token exists (a `OnceLock`).
    token: AtomicBool,
    /// Whether that token was cancelled.
    cancelled: AtomicBool,
}

impl Model {
    /// `AbortSignal::fire`.
    fn fire(&self) {
        self.reason.store(1, Ordering::Release);
        self.fired.store(true, Ordering::SeqCst);
        fence(Ordering::SeqCst);
        if self.token.load(Ordering::Acquire) {
            self.cancelled.store(true, Ordering::Release);
        }
    }

    /// `AbortSignal::aborted`, up to the decision: `true` when it returns at once (it saw
    /// the flag), `false` when it waits on the token.
    fn sees_fired_or_waits(&self) -> bool {
        self.token.store(true, Ordering::Release);
        fence(Ordering::SeqCst);
        self.fired.load(Ordering::SeqCst)
    }
}

#[test]
fn a_waiter_never_sleeps_on_a_fired_signal() {
    loom::model(|| {
        let model = Arc::new(Model::default());
        let firer = {
            let model = Arc::clone(&model);
            thread::spawn(move || model.fire())
        };
        let returned_at_once = model.sees_fired_or_waits();
        if returned_at_once {
            // Whoever sees the flag sees the reason stored before it.
            assert_eq!(model.reason.load(Ordering::Acquire), 1);
        }
        firer.join().expect("the firer finishes");
        // Either the waiter saw the flag, or the firer saw the token and cancelled it.
        assert!(returned_at_once || model.cancelled.load(Ordering::Acquire));
    });
}

#[test]
fn the_model_fails_without_the_fences() {
    // The same race with the fences removed and relaxed orderings: loom finds an execution in
    // which both sides miss each other, so the fences in the model (and in the signal) are
    // doing the work.
    let missed = std::panic::catch_unwind(|| {
        loom::model(|| {
            let fired = Arc::new(AtomicBool::new(false));
            let token = Arc::new(AtomicBool::new(false));
            let cancelled = Arc::new(AtomicBool::new(false));
            let firer = {
                let (fired, token, cancelled) =
                    (Arc::clone(&fired), Arc::clone(&token), Arc::clone(&cancelled));
                thread::spawn(move || {
                    fired.store(true, Ordering::Relaxed);
                    if token.load(Ordering::Relaxed) {
                        cancelled.store(true, Ordering::Relaxed);
                    }
                })
            };
            token.store(true, Ordering::Relaxed);
            let saw = fired.load(Ordering::Relaxed);
            firer.join().expect("the firer finishes");
            assert!(saw || cancelled.load(Ordering::Relaxed));
        });
    });
    assert!(missed.is_err(), "without the fences a waiter can miss the firing");
}
