//! The launcher: the processes that set up a sandbox and start the program inside it.
//!
//! A sandbox is applied in the child, before the program runs. Rather than run code between
//! `fork` and `exec` (which needs `unsafe`), the parent starts a launcher, a fresh
//! single-threaded process, with the [plan](crate::sandbox) as JSON in the environment
//! variable [`PLAN_ENV`]. The launcher enters the namespaces and starts itself again as the
//! first process of the new PID namespace, which lays out the mounts, confines itself
//! (Landlock, no capabilities, seccomp) and starts the program; the launcher ends as the
//! program did, and stops it if the host goes first.
//!
//! The launcher is, by default, the running program itself ([`Launcher::CurrentExe`]): a
//! host calls [`run_if_requested`] first thing in its `main`. A host that cannot names
//! another binary that does, such as this crate's `toolwire-launch`
//! ([`Launcher::Path`]).
//!
//! ```no_run
//! // First thing in the host's `main`: returns at once, unless this process was started as
//! // a launcher.
//! toolwire_process::launcher::run_if_requested();
//! ```

use std::ffi::OsString;

use crate::sandbox::plan::Plan;

pub(crate) mod protocol;

use protocol::FAILURE_PREFIX;
pub use protocol::{LAUNCH_FAILED, Launcher, PLAN_ENV};

/// When this process was started as a launcher (with [`PLAN_ENV`] set), applies the plan,
/// runs the program it names (or the one its stdin brings, when it was started ahead of its
/// call), and exits as the program did; it never returns then. Otherwise it returns at once.
///
/// Call it first thing in `main`, before any thread starts. A launcher that cannot apply its
/// plan fully writes why on stderr and exits with [`LAUNCH_FAILED`], and the program never
/// runs.
pub fn run_if_requested() {
    let Some(plan) = std::env::var_os(PLAN_ENV) else { return };
    let why = launch(plan);
    eprintln!("{FAILURE_PREFIX}{why}");
    std::process::exit(LAUNCH_FAILED);
}

/// Applies the plan and runs the program; returns only why it could not.
fn launch(plan: OsString) -> String {
    let plan: Plan = match plan.to_str().map(serde_json::from_str) {
        Some(Ok(plan)) => plan,
        Some(Err(error)) => return format!("invalid {PLAN_ENV}: {error}"),
        None => return format!("invalid {PLAN_ENV}: not UTF-8"),
    };
    run(plan)
}

#[cfg(target_os = "linux")]
fn run(plan: Plan) -> String {
    crate::sandbox::stage::run(plan)
}

#[cfg(not(target_os = "linux"))]
fn run(_plan: Plan) -> String {
    "toolwire has no sandbox backend for this OS yet".to_owned()
}
