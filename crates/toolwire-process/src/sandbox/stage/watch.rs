//! The outer stage's watch over the host: it waits for its child, and stops it at once if
//! the host goes first (killed with `SIGKILL`, it runs no cleanup of its own).
//!
//! A pidfd is watched rather than asking for a parent-death signal, which follows the
//! host's *thread* that started the launcher: a thread of a pool that ends would stop calls
//! that are still running.

use std::os::fd::{AsFd, OwnedFd};

use nix::sys::signal::{Signal, kill};
use nix::sys::wait::{WaitStatus, waitpid};
use nix::unistd::{Pid, getppid};
use rustix::event::{PollFd, PollFlags, poll};
use rustix::process::{PidfdFlags, pidfd_open};

/// A watch on the host process.
pub(super) struct Watch {
    host: OwnedFd,
}

impl Watch {
    /// Watches `host`, which must be this process's parent.
    ///
    /// # Errors
    ///
    /// When it is not (it is gone already), or cannot be watched.
    pub(super) fn host(host: u32) -> Result<Self, String> {
        let fd = pidfd(host)?;
        if getppid().as_raw() as u32 != host {
            return Err("the process that started the launcher is gone".to_owned());
        }
        Ok(Self { host: fd })
    }

    /// Waits for `child` to end and returns how it did. If the host ends first, kills
    /// `child`, runs `orphaned`, and exits.
    pub(super) fn wait(&self, child: Pid, orphaned: impl FnOnce()) -> Result<WaitStatus, String> {
        self.until(&pidfd(child.as_raw() as u32)?, child, orphaned)?;
        waitpid(child, None).map_err(|error| format!("cannot wait for the program: {error}"))
    }

    /// Waits until `ready` can be read (or is closed). If the host ends first, kills `child`,
    /// runs `orphaned`, and exits.
    pub(super) fn until(
        &self,
        ready: &impl AsFd,
        child: Pid,
        orphaned: impl FnOnce(),
    ) -> Result<(), String> {
        loop {
            let mut fds =
                [PollFd::new(&self.host, PollFlags::IN), PollFd::new(ready, PollFlags::IN)];
            match poll(&mut fds, None) {
                Ok(_) => {}
                Err(rustix::io::Errno::INTR) => continue,
                Err(error) => return Err(format!("cannot watch the program: {error}")),
            }
            if !fds[1].revents().is_empty() {
                return Ok(());
            }
            if !fds[0].revents().is_empty() {
                let _ = kill(child, Signal::SIGKILL);
                orphaned();
                std::process::exit(128 + Signal::SIGKILL as i32);
            }
        }
    }
}

/// A pidfd of `pid`.
fn pidfd(pid: u32) -> Result<OwnedFd, String> {
    let raw = i32::try_from(pid).ok().and_then(rustix::process::Pid::from_raw);
    let pid = raw.ok_or_else(|| format!("{pid} is not a process id"))?;
    pidfd_open(pid, PidfdFlags::empty())
        .map_err(|error| format!("cannot watch process {pid:?}: {error}"))
}
