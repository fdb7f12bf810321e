//! The outer stage: the launcher the host starts. It joins the cgroup, sets the limits and
//! enters the namespaces, then starts the init stage (or, where namespaces are missing and
//! the policy accepts that, confines itself and starts the program), watches the host, and
//! ends as the program did.

use std::io::Read;
use std::os::fd::AsRawFd;

use nix::fcntl::{FcntlArg, FdFlag, fcntl};
use nix::sys::wait::waitpid;
use nix::unistd::Pid;

use super::status::Ended;
use super::watch::Watch;
use super::{STAGE_ENV, cannot_run, command, take_call};
use crate::sandbox::plan::Plan;
use crate::sandbox::{Layer, Network, SandboxError, enforce, fds, namespace, netns, pids};

/// Runs the outer stage; returns only why the program could not run.
pub(super) fn run(mut plan: Plan) -> String {
    match start(&mut plan) {
        Ok(ended) => ended.mirror(),
        Err(why) => why,
    }
}

fn start(plan: &mut Plan) -> Result<Ended, String> {
    fds::close_inherited(&[])?;
    let watch = Watch::host(plan.parent)?;
    // Joined while still root in the host's user namespace; else a new one is made.
    let joined = plan.netns.is_some_and(|(host, fd)| netns::join(host, fd).is_ok());
    enforce::prepare(plan)?;
    match namespace::enter(joined || plan.network != Network::Off) {
        Ok(()) => through_init(&watch),
        Err(why) if plan.accepts(Layer::Namespaces) => without_namespaces(plan, &watch, &why),
        Err(why) => Err(SandboxError::missing_layer(Layer::Namespaces, why).to_string()),
    }
}

/// Starts the init stage, the first process of the new PID namespace, and reads how the
/// program ended from it.
fn through_init(watch: &Watch) -> Result<Ended, String> {
    let (mut report, writer) =
        std::io::pipe().map_err(|error| format!("cannot make the report pipe: {error}"))?;
    // The init stage inherits the writing end; every other descriptor stays close-on-exec.
    fcntl(&writer, FcntlArg::F_SETFD(FdFlag::empty()))
        .map_err(|error| format!("cannot pass the report pipe: {error}"))?;
    let launcher = std::env::current_exe()
        .map_err(|error| format!("cannot find the launcher again: {error}"))?;
    let stage = format!("{}:{}", std::process::id(), writer.as_raw_fd());
    let child = std::process::Command::new(launcher)
        .env(STAGE_ENV, stage)
        .spawn()
        .map_err(|error| format!("cannot start the sandbox's init: {error}"))?;
    drop(writer);
    let child = Pid::from_raw(child.id() as i32);
    watch.until(&report, child, || {})?;
    let mut text = String::new();
    let _ = report.read_to_string(&mut text);
    // Reported: the init stage ends on its own (it tears the namespaces down meanwhile).
    if let Some(ended) = Ended::parse(&text) {
        return Ok(ended);
    }
    // Nothing reported: the init stage failed, and said why on stderr.
    let status =
        waitpid(child, None).map_err(|error| format!("cannot wait for the init: {error}"))?;
    Ended::of(status)
        .ok_or_else(|| format!("the sandbox's init ended without a status: {status:?}"))
}

/// Confines this process and starts the program under it, in the host's namespaces.
fn without_namespaces(plan: &mut Plan, watch: &Watch, why: &str) -> Result<Ended, String> {
    // Already a session leader unless the host made it a group leader: no terminal then.
    let _ = nix::unistd::setsid();
    enforce::before_call(plan)?;
    let call = take_call(plan)?;
    enforce::confine(plan, &call)?;
    if plan.probe {
        let note = crate::launcher::protocol::WITHOUT_NAMESPACES;
        eprintln!("{}{note} ({why})", crate::launcher::protocol::FAILURE_PREFIX);
        return Ok(Ended::Exit(0));
    }
    let mut program = command(&call)?;
    let child = program.current_dir(&call.cwd).spawn().map_err(|e| cannot_run(&call, &e))?;
    let status = watch.wait(Pid::from_raw(child.id() as i32), || {
        if let Some(cgroup) = &plan.cgroup {
            pids::kill_all_but_me(cgroup);
        }
    })?;
    Ended::of(status).ok_or_else(|| format!("the program ended without a status: {status:?}"))
}
