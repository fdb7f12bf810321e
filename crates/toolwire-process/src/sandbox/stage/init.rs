//! The init stage: the first process of the program's PID namespace. It stops with the outer
//! stage, leaves the host's terminal, makes the view of the files read-only with its own
//! `/dev` and `/proc`, then takes its call (which may come later), mounts the call's write
//! paths, confines itself, starts the program, and reaps every process of the namespace until the program ends; then
//! it reports how, and exits, which ends every process the program left.

use std::io::Write;
use std::os::fd::RawFd;

use nix::sys::signal::Signal;
use nix::sys::wait::waitpid;
use nix::unistd::Pid;

use super::status::Ended;
use super::{cannot_run, command, take_call};
use crate::sandbox::plan::{Call, Plan};
use crate::sandbox::{enforce, fds, mounts, namespace};

/// Runs the init stage, told by `stage` (`PID:FD`) which process started it and where to
/// report; returns only why the program could not run.
pub(super) fn run(mut plan: Plan, stage: &str) -> String {
    match start(&mut plan, stage) {
        Ok(ended) => ended.mirror(),
        Err(why) => why,
    }
}

fn start(plan: &mut Plan, stage: &str) -> Result<Ended, String> {
    let (outer, report) = parse(stage)?;
    // Dies with the outer stage, which is single-threaded: the signal cannot come early.
    nix::sys::prctl::set_pdeathsig(Signal::SIGKILL)
        .map_err(|error| format!("cannot set the parent-death signal: {error}"))?;
    if parent_in_host() != Some(outer) {
        return Err("the launcher that started the sandbox's init is gone".to_owned());
    }
    fds::close_inherited(&[report])?;
    let mut report = std::fs::OpenOptions::new()
        .write(true)
        .open(format!("/proc/self/fd/{report}"))
        .and_then(|file| nix::unistd::close(report).map(|()| file).map_err(std::io::Error::from))
        .map_err(|error| format!("cannot open the report pipe: {error}"))?;
    nix::unistd::setsid()
        .map_err(|error| format!("cannot leave the terminal's session: {error}"))?;
    namespace::enter_mounts()?;
    let view = mounts::View::prepare()?;
    enforce::before_call(plan)?;
    let call = take_call(plan)?;
    view.finish(&call)?;
    enforce::confine(plan, &call)?;
    let ended = if plan.probe { Ended::Exit(0) } else { run_program(&call)? };
    report
        .write_all(ended.to_text().as_bytes())
        .map_err(|error| format!("cannot report the program's end: {error}"))?;
    Ok(Ended::Exit(0))
}

/// `PID:FD`.
fn parse(stage: &str) -> Result<(u32, RawFd), String> {
    let parsed =
        stage.split_once(':').and_then(|(pid, fd)| Some((pid.parse().ok()?, fd.parse().ok()?)));
    parsed.ok_or_else(|| format!("invalid sandbox stage {stage:?}"))
}

/// This process's parent as the host's PID namespace numbers it (the host's `/proc` is still
/// mounted): field 4 of `/proc/self/stat`, after the command's name in parentheses.
fn parent_in_host() -> Option<u32> {
    let stat = std::fs::read_to_string("/proc/self/stat").ok()?;
    let (_, after_name) = stat.rsplit_once(')')?;
    after_name.split_whitespace().nth(1)?.parse().ok()
}

/// Starts the program, reaps every process that ends until it is the program, and says how
/// it ended.
fn run_program(call: &Call) -> Result<Ended, String> {
    let child = command(call)?.spawn().map_err(|error| cannot_run(call, &error))?;
    let pid = Pid::from_raw(child.id() as i32);
    // The output's pipes close when the program's processes close them, not when this one
    // ends, after the namespace's mounts are torn down.
    let null = std::fs::File::options().read(true).write(true).open("/dev/null");
    if let Ok(null) = null {
        let _ = nix::unistd::dup2_stdout(&null);
        let _ = nix::unistd::dup2_stderr(&null);
        let _ = nix::unistd::dup2_stdin(&null);
    }
    loop {
        let status =
            waitpid(None::<Pid>, None).map_err(|e| format!("cannot wait for the program: {e}"))?;
        if status.pid() == Some(pid)
            && let Some(ended) = Ended::of(status)
        {
            return Ok(ended);
        }
    }
}
