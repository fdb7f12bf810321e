//! [`launch`]: a long-running program (such as an MCP server spoken to over stdio) started
//! under a [`Policy`], as command tools' calls are.

use std::ffi::OsStr;
use std::fmt;
use std::path::Path;

use tokio::process::Command;

use super::plan::{Call, CallGuard, Launch};
use super::{Policy, SandboxError};
use crate::launcher::protocol::Launcher;
use crate::launcher::protocol::PLAN_ENV;

/// What a sandboxed program needs kept until it has ended: its private temporary folder
/// and, under root, its `pids` cgroup. Dropping it removes them.
pub struct LaunchGuard {
    _launch: Launch,
    _call: CallGuard,
}

impl fmt::Debug for LaunchGuard {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("LaunchGuard").finish_non_exhaustive()
    }
}

/// The command that starts `program` (found in `PATH` unless it has a slash) with `args`
/// under `policy`, in `cwd`, through `launcher`: it sees only the variables of `env`, and
/// `TMPDIR` when the policy gives it a temporary folder. Spawn it with the stdin the program
/// should read, then keep the guard as long as the program runs.
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
    let found = crate::resolve::program(program, Some(cwd))
        .map_err(|why| setup(format!("cannot run {program:?}: {why}")))?;
    let mut argv = vec![utf8(found.as_os_str())?, program.to_owned()];
    argv.extend(args.iter().cloned());
    let mut launch = Launch::prepare(policy)?;
    let (call, guard) = Call::prepare(policy, cwd, argv)?;
    launch.plan.call = Some(call);
    let mut command = Command::from(launcher_command(launcher, &launch, env)?);
    command.current_dir(cwd);
    Ok((command, LaunchGuard { _launch: launch, _call: guard }))
}

/// The command that starts `launcher` for `launch`: it sees only the variables of `env`, and
/// its plan. Every launcher, whether its call is known or comes later, is started by this.
///
/// # Errors
///
/// Setup, when the launcher cannot be found or the plan written.
pub(crate) fn launcher_command(
    launcher: &Launcher,
    launch: &Launch,
    env: impl IntoIterator<Item = (impl AsRef<OsStr>, impl AsRef<OsStr>)>,
) -> Result<std::process::Command, SandboxError> {
    let path = launcher
        .path()
        .map_err(|error| SandboxError::setup(format!("cannot find the launcher: {error}")))?;
    let mut command = std::process::Command::new(path);
    command.env_clear().envs(env).env(PLAN_ENV, launch.to_json()?);
    Ok(command)
}

/// `text` as UTF-8, which the plan's JSON needs.
pub(crate) fn utf8(text: &OsStr) -> Result<String, SandboxError> {
    text.to_str().map(str::to_owned).ok_or_else(|| {
        SandboxError::setup(format!(
            "{} is not UTF-8, which a sandboxed program's path must be",
            text.to_string_lossy()
        ))
    })
}
