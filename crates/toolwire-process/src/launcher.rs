//! The launcher: the process that applies a sandbox to itself and then becomes the program.
//!
//! A sandbox is applied in the child, after `fork` and before the program runs. Rather than
//! run code between `fork` and `exec` (which needs `unsafe`), the parent starts a launcher,
//! a fresh single-threaded process, with the [plan](crate::sandbox) as JSON in the
//! environment variable [`PLAN_ENV`]. The launcher applies it and `exec`s the program, which
//! keeps the launcher's pid, limits and Landlock domain.
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
use std::path::PathBuf;

use crate::sandbox::plan::Plan;

/// The environment variable that holds the launcher's plan, as JSON; the program does not
/// see it.
pub const PLAN_ENV: &str = "TOOLWIRE_SANDBOX_PLAN";

/// The exit status of a launcher that could not apply its plan (the program never ran).
pub const LAUNCH_FAILED: i32 = 125;

/// What a launcher that could not apply its plan writes first on stderr.
pub(crate) const FAILURE_PREFIX: &str = "toolwire sandbox: ";

/// Which binary applies a sandbox before the program runs.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub enum Launcher {
    /// The running program, which calls [`run_if_requested`] first thing in `main`.
    #[default]
    CurrentExe,
    /// Another binary that does, such as `toolwire-launch` from this crate.
    Path(PathBuf),
}

impl Launcher {
    /// The launcher's path.
    pub(crate) fn path(&self) -> std::io::Result<PathBuf> {
        match self {
            Launcher::CurrentExe => std::env::current_exe(),
            Launcher::Path(path) => Ok(path.clone()),
        }
    }
}

/// When this process was started as a launcher (with [`PLAN_ENV`] set), applies the plan and
/// becomes the program named by its arguments; it never returns then. Otherwise it returns
/// at once.
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

/// Applies the plan and `exec`s the program; returns only why it could not.
fn launch(plan: OsString) -> String {
    let plan: Plan = match plan.to_str().map(serde_json::from_str) {
        Some(Ok(plan)) => plan,
        Some(Err(error)) => return format!("invalid {PLAN_ENV}: {error}"),
        None => return format!("invalid {PLAN_ENV}: not UTF-8"),
    };
    let mut args = std::env::args_os().skip(1);
    let (Some(program), Some(arg0)) = (args.next(), args.next()) else {
        return "usage: launcher PROGRAM ARG0 [ARGS...]".to_owned();
    };
    if let Err(why) = enforce(&plan) {
        return why;
    }
    exec(program, arg0, args)
}

#[cfg(target_os = "linux")]
fn enforce(plan: &Plan) -> Result<(), String> {
    crate::sandbox::enforce::enforce(plan)
}

#[cfg(not(target_os = "linux"))]
fn enforce(_plan: &Plan) -> Result<(), String> {
    Err("toolwire has no sandbox backend for this OS yet".to_owned())
}

#[cfg(unix)]
fn exec(program: OsString, arg0: OsString, args: impl Iterator<Item = OsString>) -> String {
    use std::os::unix::process::CommandExt;
    let mut command = std::process::Command::new(&program);
    command.arg0(arg0).args(args).env_remove(PLAN_ENV);
    let error = command.exec();
    format!("cannot run {}: {error}", PathBuf::from(program).display())
}
