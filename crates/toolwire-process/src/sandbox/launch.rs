//! [`launch`]: a long-running program (such as an MCP server spoken to over stdio) started
//! under a [`Policy`], as command tools' calls are.

use std::ffi::OsStr;
use std::fmt;
use std::path::Path;

use tokio::process::Command;

use super::plan::{Prepared, prepare};
use super::{Policy, SandboxError};
use crate::launcher::{Launcher, PLAN_ENV};

/// What a sandboxed program needs kept until it has ended: its private temporary folder
/// and, under root, its `pids` cgroup. Dropping it removes them.
pub struct LaunchGuard {
    _prepared: Prepared,
}

impl fmt::Debug for LaunchGuard {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("LaunchGuard").finish_non_exhaustive()
    }
}

/// The command that starts `program` (found in `PATH` unless it has a slash) with `args`
/// under `policy`, in `cwd`, through `launcher`: it sees only the variables of `env`, and
/// `TMPDIR` when the policy gives it a temporary folder. Spawn it, then keep the guard as
/// long as the program runs.
///
/// # Errors
///
/// As a sandboxed call's: [`Unsupported`](super::SandboxErrorKind::Unsupported) when this machine cannot
/// enforce the policy (the program must then not run), and a setup error when a path of
/// the policy does not exist or the program or launcher cannot be found.
pub fn launch(
    policy: &Policy,
    launcher: &Launcher,
    program: &str,
    args: &[String],
    cwd: &Path,
    env: impl IntoIterator<Item = (impl AsRef<OsStr>, impl AsRef<OsStr>)>,
) -> Result<(Command, LaunchGuard), SandboxError> {
    let setup = SandboxError::setup;
    let prepared = prepare(policy, cwd)?;
    let found = crate::resolve::program(program, Some(cwd))
        .map_err(|why| setup(format!("cannot run {program:?}: {why}")))?;
    let launcher =
        launcher.path().map_err(|error| setup(format!("cannot find the launcher: {error}")))?;
    let plan = serde_json::to_string(&prepared.plan)
        .map_err(|error| setup(format!("cannot write the sandbox plan: {error}")))?;
    let mut command = Command::new(launcher);
    command.arg(found).arg(program).args(args).env_clear().envs(env).env(PLAN_ENV, plan);
    if let Some(temp) = &prepared.temp {
        command.env("TMPDIR", temp.path());
    }
    command.current_dir(cwd);
    Ok((command, LaunchGuard { _prepared: prepared }))
}
