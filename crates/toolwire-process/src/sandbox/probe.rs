//! The whole sandbox of a policy tried once by the launcher, without a program, for
//! `toolwire check`: what a call would find missing, found before any call.

use std::path::Path;

use super::launch::launcher_command;
use super::plan::{Call, Launch};
use super::{Layer, Policy, Report, SandboxError};
use crate::launcher::protocol::Launcher;
use crate::launcher::protocol::{FAILURE_PREFIX, WITHOUT_NAMESPACES};

/// Tries the whole sandbox of `policy` in `cwd` through `launcher`, without a program.
///
/// # Errors
///
/// The layer or setup step that failed.
pub(crate) fn run(
    policy: &Policy,
    launcher: &Launcher,
    cwd: &Path,
) -> Result<Report, SandboxError> {
    let mut launch = Launch::prepare(policy)?;
    let (call, _guard) = Call::prepare(policy, cwd, Vec::new())?;
    let features = launch.plan.features;
    launch.plan.probe = true;
    launch.plan.call = Some(call);
    let output = launcher_command(launcher, &launch, std::iter::empty::<(String, String)>())?
        .current_dir(cwd)
        .stdin(std::process::Stdio::null())
        .output()
        .map_err(|error| SandboxError::setup(format!("cannot start the launcher: {error}")))?;
    let printed = String::from_utf8_lossy(&output.stderr);
    if !output.status.success() {
        let why = printed.lines().find_map(|line| line.strip_prefix(FAILURE_PREFIX));
        return Err(SandboxError::launcher(why.unwrap_or(printed.trim())));
    }
    let mut report = Report::default();
    if !features.device_ioctl {
        report.missing.push(Layer::DeviceIoctl);
    }
    if !features.scopes {
        report.missing.push(Layer::Scopes);
    }
    if printed.contains(WITHOUT_NAMESPACES) {
        report.missing.insert(0, Layer::Namespaces);
    }
    Ok(report)
}
