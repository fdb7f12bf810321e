//! Launchers started ahead of their calls. Starting a sandbox's launcher (two `exec`s, the
//! namespaces) costs more than the rest of a call's start, and none of it depends on the
//! call: once a tool has been called, a launcher for its next call is started while the
//! current one runs, and waits, in its namespaces, for the call on its stdin.

use std::process::Stdio;
use std::sync::Mutex;
use std::sync::atomic::{AtomicBool, Ordering};

use tokio::io::AsyncWriteExt;
use tokio::process::{ChildStdin, Command};

use super::group::Group;
use crate::sandbox::Policy;
use crate::sandbox::launch::launcher_command;
use crate::sandbox::plan::{Call, Launch};
use crate::spec::CommandSpec;

/// A launcher waiting for its call.
#[derive(Debug)]
pub(super) struct Ready {
    group: Group,
    stdin: ChildStdin,
    launch: Launch,
}

/// A running launcher, with what it holds until it ends.
#[derive(Debug)]
pub(super) struct Started {
    /// Its process group (and its program's).
    pub(super) group: Group,
    /// Its plan and cgroup.
    pub(super) launch: Launch,
}

impl Ready {
    /// Starts a launcher for `spec` under `policy`.
    ///
    /// # Errors
    ///
    /// Why it cannot start: the sandbox cannot be prepared, or the launcher is missing.
    pub(super) fn spawn(spec: &CommandSpec, policy: &Policy) -> Result<Self, String> {
        let launch = Launch::prepare(policy).map_err(|error| error.to_string())?;
        let env = std::env::vars_os()
            .filter(|(key, _)| spec.env.iter().any(|allowed| key == allowed.as_str()));
        let command = launcher_command(&spec.launcher, &launch, env);
        let mut command = Command::from(command.map_err(|error| error.to_string())?);
        command.stdin(Stdio::piped()).stdout(Stdio::piped()).stderr(Stdio::piped());
        let mut group = Group::spawn(command, true)
            .map_err(|error| format!("cannot start the sandbox launcher: {error}"))?;
        let stdin = group.stdin().ok_or("the launcher's stdin was not piped")?;
        Ok(Self { group, stdin, launch })
    }

    /// Hands `call` to the launcher, which then runs it.
    ///
    /// # Errors
    ///
    /// When the launcher is gone (it can no longer read its call).
    ///
    /// # Cancel safety
    ///
    /// Dropping the future drops the launcher, which kills it.
    pub(super) async fn start(mut self, call: &Call) -> Result<Started, String> {
        let text =
            serde_json::to_vec(call).map_err(|error| format!("cannot write the call: {error}"))?;
        self.stdin
            .write_all(&text)
            .await
            .map_err(|error| format!("the sandbox launcher is gone: {error}"))?;
        drop(self.stdin);
        Ok(Started { group: self.group, launch: self.launch })
    }
}

/// The launcher kept ready for a tool's next call.
#[derive(Debug, Default)]
pub(super) struct Spare {
    ready: Mutex<Option<Ready>>,
    called: AtomicBool,
}

impl Spare {
    /// The launcher kept ready, if it is still alive.
    pub(super) fn take(&self) -> Option<Ready> {
        let mut taken = self.ready.lock().ok()?.take()?;
        if taken.group.has_exited() { None } else { Some(taken) }
    }

    /// Keeps a new launcher ready for the next call, from the second call on (a tool called
    /// once, as by a one-shot command, does not start one for nothing).
    pub(super) fn refill(&self, spec: &CommandSpec, policy: &Policy) {
        if !self.called.swap(true, Ordering::Relaxed) {
            return;
        }
        let Ok(ready) = Ready::spawn(spec, policy) else { return };
        if let Ok(mut slot) = self.ready.lock() {
            *slot = Some(ready);
        }
    }
}
