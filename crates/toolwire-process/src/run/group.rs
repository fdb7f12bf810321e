//! A command's process group: the program and every process it starts, killed together.
//!
//! The program leads a new process group, which its children and grandchildren join unless
//! they leave it themselves (`setsid`). Killing the group kills them all, where killing the
//! program alone would leave them running, holding its pipes.

use std::io;
use std::process::ExitStatus;

use process_wrap::tokio::{ChildWrapper, CommandWrap, ProcessGroup, ProcessSession};
use tokio::process::{ChildStderr, ChildStdin, ChildStdout, Command};

/// A running command in a process group of its own; dropping it kills the whole group.
#[derive(Debug)]
pub(crate) struct Group {
    child: Box<dyn ChildWrapper>,
}

impl Group {
    /// Starts `command` as the leader of a new process group, and of a new session with no
    /// terminal when `session` is true (a sandbox's launcher).
    ///
    /// # Errors
    ///
    /// When the program cannot be started.
    pub(crate) fn spawn(command: Command, session: bool) -> io::Result<Self> {
        let mut wrapped = CommandWrap::from(command);
        if session {
            wrapped.wrap(ProcessSession);
        } else {
            wrapped.wrap(ProcessGroup::leader());
        }
        Ok(Self { child: wrapped.spawn()? })
    }

    /// The program's stdin, once, when it was piped.
    pub(crate) fn stdin(&mut self) -> Option<ChildStdin> {
        self.child.stdin().take()
    }

    /// Whether the group's leader has exited already.
    pub(crate) fn has_exited(&mut self) -> bool {
        !matches!(self.child.try_wait(), Ok(None))
    }

    /// The program's stdout and stderr, once.
    pub(crate) fn pipes(&mut self) -> Option<(ChildStdout, ChildStderr)> {
        Some((self.child.stdout().take()?, self.child.stderr().take()?))
    }

    /// Waits for the program, the group's leader, to exit; the rest of the group may live on.
    ///
    /// # Cancel safety
    ///
    /// Dropping it leaves the program running, to be waited for again or killed.
    pub(crate) async fn wait(&mut self) -> io::Result<ExitStatus> {
        self.child.wait().await
    }

    /// Kills every process still in the group, with `SIGKILL`.
    pub(crate) fn kill(&mut self) {
        // An error means the group is empty: everyone in it is gone already.
        let _ = self.child.start_kill();
    }
}

impl Drop for Group {
    fn drop(&mut self) {
        self.kill();
    }
}
