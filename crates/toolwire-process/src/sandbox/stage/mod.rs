//! The launcher's processes. The launcher that the host starts (the *outer* stage) joins the
//! cgroup, sets the limits, and enters the namespaces; its child, the first process of the
//! new PID namespace (the *init* stage), lays out the mounts, confines itself, and starts the
//! program, whose exit it reports back. The outer stage stops everything when the host goes.
//!
//! ```text
//! host ── outer stage (host PID namespace) ── init stage (PID 1) ── program
//! ```
//!
//! A launcher may start before its call is known (the host keeps one ready): the stages then
//! do what the policy alone decides, and the init stage reads the call from its stdin, which
//! the program then gets as `/dev/null`.

mod init;
mod outer;
mod status;
mod watch;

use std::io::Read;

use super::plan::{Call, Plan};

/// The variable that starts a launcher as the init stage: `PID:FD`, the outer stage's pid and
/// the descriptor the program's exit is reported on.
const STAGE_ENV: &str = "TOOLWIRE_SANDBOX_STAGE";

/// Runs the stage this process is, for `plan`; returns only why it could not (the program
/// must then not run), and otherwise exits as the program did.
pub(crate) fn run(plan: Plan) -> String {
    match std::env::var(STAGE_ENV) {
        Ok(stage) => init::run(plan, &stage),
        Err(_) => outer::run(plan),
    }
}

/// The call of `plan`, or, when the launcher started ahead of it, the one its stdin brings;
/// stdin is then `/dev/null`.
fn take_call(plan: &mut Plan) -> Result<Call, String> {
    if let Some(call) = plan.call.take() {
        return Ok(call);
    }
    let mut text = Vec::new();
    std::io::stdin()
        .read_to_end(&mut text)
        .map_err(|error| format!("cannot read the call: {error}"))?;
    let call = serde_json::from_slice(&text).map_err(|error| format!("invalid call: {error}"))?;
    let null = std::fs::File::open("/dev/null")
        .map_err(|error| format!("cannot open /dev/null: {error}"))?;
    nix::unistd::dup2_stdin(null)
        .map_err(|error| format!("cannot give the program /dev/null: {error}"))?;
    Ok(call)
}

/// The command that runs the program of `call`, without the launcher's variables.
fn command(call: &Call) -> Result<std::process::Command, String> {
    use std::os::unix::process::CommandExt;
    let [path, arg0, args @ ..] = call.argv.as_slice() else {
        return Err("the call names no program".to_owned());
    };
    let mut command = std::process::Command::new(path);
    command.arg0(arg0).args(args);
    command.env_remove(crate::launcher::protocol::PLAN_ENV).env_remove(STAGE_ENV);
    if let Some(temp) = &call.temp {
        command.env("TMPDIR", temp);
    }
    Ok(command)
}

/// Why the program of `call` could not start.
fn cannot_run(call: &Call, error: &std::io::Error) -> String {
    format!("cannot run {}: {error}", call.argv.first().map_or("the program", String::as_str))
}
