//! Stopping on SIGINT, SIGTERM or SIGHUP: the work under way is dropped, which kills the
//! process group of every command tool it runs.
//!
//! A command tool leads a process group of its own, so a Ctrl-C in the terminal reaches
//! only `toolwire`; without this, the program and its children would outlive it.

use std::future::Future;
use std::sync::OnceLock;

use tokio::signal::unix::{SignalKind, signal};

use crate::exit::{CliError, Exit};

/// Runs `work` to its end, unless a stop signal comes first: then `work` is dropped and the
/// result is an interruption (exit code 130) naming the signal.
///
/// # Cancel safety
///
/// Dropping it drops `work`.
pub(crate) async fn until_stopped(
    work: impl Future<Output = Result<Exit, CliError>>,
) -> Result<Exit, CliError> {
    tokio::select! {
        outcome = work => outcome,
        name = stop_signal() => Err(CliError::with_exit(Exit::Interrupted, stopped(name))),
    }
}

/// How a command that serves calls says how many run now; one that does not registers none.
type Running = Box<dyn Fn() -> usize + Send + Sync>;

/// What the command under way counts as running calls, when it serves them.
static RUNNING: OnceLock<Running> = OnceLock::new();

/// Registers how to count the calls running now, for a server: a stop then says whether it
/// stopped any. Without it, the command's own work is the call under way.
pub(crate) fn count_calls(running: impl Fn() -> usize + Send + Sync + 'static) {
    let _ = RUNNING.set(Box::new(running));
}

/// What a stop by `name` says: the calls it stopped, if any.
fn stopped(name: &str) -> String {
    match RUNNING.get().map(|running| running()) {
        Some(0) => format!("interrupted by {name}: no call was under way"),
        Some(1) | None => {
            format!("interrupted by {name}: the calls under way were stopped, with their processes")
        }
        Some(n) => format!(
            "interrupted by {name}: the {n} calls under way were stopped, with their processes"
        ),
    }
}

/// The name of the first stop signal to arrive; never, if they cannot be listened for.
async fn stop_signal() -> &'static str {
    let listen = |kind| signal(kind).ok();
    let (Some(mut int), Some(mut term), Some(mut hup)) = (
        listen(SignalKind::interrupt()),
        listen(SignalKind::terminate()),
        listen(SignalKind::hangup()),
    ) else {
        return std::future::pending().await;
    };
    tokio::select! {
        _ = int.recv() => "SIGINT",
        _ = term.recv() => "SIGTERM",
        _ = hup.recv() => "SIGHUP",
    }
}
