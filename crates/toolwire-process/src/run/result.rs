//! A finished command's result, as the model reads it.

use std::os::unix::process::ExitStatusExt;
use std::process::ExitStatus;

use serde_json::{Value, json};
use toolwire::ToolResult;

use std::path::Path;
use std::time::SystemTime;

use super::media;
use super::output::Finished;
use crate::launcher::protocol::{FAILURE_PREFIX, LAUNCH_FAILED};
use crate::spec::{CommandSpec, MediaOutput};

/// The result of the call of `name` that ended as `done`, which started at `started` in the
/// working folder `cwd`.
pub(super) fn of(
    name: &str,
    spec: &CommandSpec,
    done: Finished,
    cwd: &Path,
    started: SystemTime,
) -> ToolResult {
    let Finished { status, stdout, stderr } = done;
    if let Some(why) = launch_failure(status, &stderr) {
        return ToolResult::failure(format!(
            "the sandbox of {name:?} could not be applied, and {:?} never ran: {why}; set \
             sandbox = \"none\" (Sandbox::None) to run it without one",
            spec.program
        ));
    }
    if !status.success() {
        let detail = stderr.trim_end();
        let detail = if detail.is_empty() { String::new() } else { format!(": {detail}") };
        return ToolResult::failure(format!("{name:?} {}{detail}", how(status)));
    }
    if let Some(output) = &spec.media_output {
        return with_media(name, spec, output, stdout, cwd, started);
    }
    let stdout = String::from_utf8_lossy(&stdout).into_owned();
    let text = stdout.trim_end().to_owned();
    if spec.json_output {
        return match serde_json::from_str::<Value>(&stdout) {
            Ok(value) => ToolResult::ok(value, text),
            Err(error) => {
                ToolResult::failure(format!("the output of {name:?} is not JSON: {error}"))
            }
        };
    }
    ToolResult::ok(json!({"stdout": stdout, "stderr": stderr, "status": 0}), text)
}

/// A result whose part is stdout, or the file the program wrote (with stdout as its text).
fn with_media(
    name: &str,
    spec: &CommandSpec,
    output: &MediaOutput,
    stdout: Vec<u8>,
    cwd: &Path,
    started: SystemTime,
) -> ToolResult {
    let Some(path) = output.path() else {
        return ToolResult::from_parts(vec![media::part(output, name, stdout)]);
    };
    match media::read(cwd, path, spec.output_limit, started) {
        Ok(bytes) => {
            let file_name = path.file_name().map_or_else(|| name.into(), |n| n.to_string_lossy());
            let part = media::part(output, &file_name, bytes);
            let text = String::from_utf8_lossy(&stdout).trim_end().to_owned();
            ToolResult::ok(serde_json::Value::Null, text).with_parts(vec![part])
        }
        Err(why) => ToolResult::failure(format!("{name:?} ran, but {why}")),
    }
}

/// What the launcher said when it exited before running the program.
fn launch_failure(status: ExitStatus, stderr: &str) -> Option<&str> {
    if status.code() != Some(LAUNCH_FAILED) {
        return None;
    }
    stderr.lines().find_map(|line| line.strip_prefix(FAILURE_PREFIX))
}

/// How the program ended, when not with success: a signal is named, with the limit that
/// sends it.
fn how(status: ExitStatus) -> String {
    let Some(signal) = status.signal() else {
        return match status.code() {
            Some(code) => format!("exited with status {code}"),
            None => "ended without a status".to_owned(),
        };
    };
    let name = match nix::sys::signal::Signal::try_from(signal) {
        Ok(signal) => signal.as_str().to_owned(),
        Err(_) => format!("signal {signal}"),
    };
    let why = match name.as_str() {
        "SIGXCPU" => " (it reached its CPU time limit)",
        "SIGXFSZ" => " (it reached its file size limit)",
        _ => "",
    };
    format!("was killed by {name}{why}")
}
