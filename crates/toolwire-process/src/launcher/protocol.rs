//! What a launcher and its host say to each other: the variable that carries the plan, and
//! how a launcher that could not apply it says so; which binary is the launcher.

use std::path::PathBuf;

/// The environment variable that holds the launcher's plan, as JSON; the program does not
/// see it.
pub const PLAN_ENV: &str = "TOOLWIRE_SANDBOX_PLAN";

/// The exit status of a launcher that could not apply its plan (the program never ran).
pub const LAUNCH_FAILED: i32 = 125;

/// What a launcher that could not apply its plan writes first on stderr.
pub(crate) const FAILURE_PREFIX: &str = "toolwire sandbox: ";

/// What a probing launcher says when it ran without namespaces, which its policy accepts.
pub(crate) const WITHOUT_NAMESPACES: &str = "running without namespaces";

/// Which binary applies a sandbox before the program runs.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub enum Launcher {
    /// The running program, which calls [`run_if_requested`](super::run_if_requested) first
    /// thing in `main`.
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
