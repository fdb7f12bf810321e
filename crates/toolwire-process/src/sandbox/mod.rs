//! The sandbox of a command tool: what its program may read, write and reach, and how much it
//! may use, applied in the child before the program runs.
//!
//! The parent prepares a plan (paths resolved, symlinks followed, a private temporary
//! folder made) and hands it, as JSON, to the [launcher](crate::launcher), which applies it to
//! itself and then `exec`s the program. Nothing the sandbox asks for is best effort: where the
//! kernel cannot enforce a rule, the call fails with a message that names the missing feature
//! and the opt-out, [`Sandbox::None`].

mod backend;
#[cfg(target_os = "linux")]
pub(crate) mod enforce;
mod error;
#[cfg(target_os = "linux")]
mod landlock;
mod launch;
mod limits;
mod pids;
pub(crate) mod plan;
#[cfg(target_os = "linux")]
mod seccomp;
mod show;

use std::path::PathBuf;

use serde::{Deserialize, Serialize};

pub use backend::Backend;
pub use error::{SandboxError, SandboxErrorKind};
pub use launch::{LaunchGuard, launch};
pub use limits::Limits;

/// Whether a command tool runs sandboxed, and how.
///
/// The default is not "no sandbox": it is [`Policy::default`], which lets the program read
/// everywhere, write only in its working folder and its temporary folder (and to the sinks
/// `/dev/null`, `/dev/zero` and `/dev/full`, which every policy allows), reach no network,
/// and stay within [`Limits::default`].
///
/// ```
/// use toolwire_process::sandbox::{Network, Policy, Sandbox};
///
/// let mut policy = Policy::default();
/// policy.network = Network::Ports(vec![8080]);
/// let sandbox = Sandbox::Policy(policy);
/// assert!(sandbox.to_string().contains("network: TCP ports 8080"));
/// assert_eq!(Sandbox::None.to_string(), "none (the program runs unsandboxed)");
/// ```
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Sandbox {
    /// No sandbox: the program runs with everything its user may do. Only ever explicit.
    None,
    /// The program runs under this policy.
    Policy(Policy),
}

impl Default for Sandbox {
    fn default() -> Self {
        Sandbox::Policy(Policy::default())
    }
}

/// What a sandboxed program may do.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub struct Policy {
    /// The folders and files it may read (and execute), with everything beneath them.
    pub read: Vec<PathBuf>,
    /// The folders and files it may write (create, change, remove), beneath them too.
    pub write: Vec<PathBuf>,
    /// Whether its working folder is writable too (the default).
    pub write_working_folder: bool,
    /// Whether it gets a private temporary folder, writable, named by `TMPDIR`, and removed
    /// after the call (the default).
    pub temp_folder: bool,
    /// What network it may reach.
    pub network: Network,
    /// Its resource limits.
    pub limits: Limits,
    /// Another user to run it as (the parent must be root); `None` keeps the caller's.
    pub user: Option<User>,
}

impl Default for Policy {
    fn default() -> Self {
        Self {
            read: vec![PathBuf::from("/")],
            write: Vec::new(),
            write_working_folder: true,
            temp_folder: true,
            network: Network::Off,
            limits: Limits::default(),
            user: None,
        }
    }
}

impl Policy {
    /// Whether this machine can enforce the policy, checked as a call would check it before
    /// it runs anything, without running anything: the OS has a backend, the kernel has the
    /// Landlock rights the policy needs, and, under root, a `pids` cgroup for the process
    /// limit. For `toolwire check` and hosts that want to warn before the first call.
    ///
    /// # Errors
    ///
    /// [`SandboxErrorKind::Unsupported`], with the message a call would fail with: the
    /// missing feature and the opt-out.
    pub fn check_enforceable(&self) -> Result<(), SandboxError> {
        plan::check(self)
    }
}

/// The network a sandboxed program may reach.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub enum Network {
    /// No network (the default): no TCP connection and no TCP listener (Landlock), and no
    /// socket of any other kind, UDP, raw, netlink or Unix (a seccomp filter).
    #[default]
    Off,
    /// Any network.
    On,
    /// TCP connections to these ports only (on any host, such as a service on loopback), no
    /// listener, and no socket of another kind, as with [`Off`](Self::Off).
    Ports(Vec<u16>),
}

/// A user to run a sandboxed program as, by number.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub struct User {
    /// The user id.
    pub uid: u32,
    /// The group id, which is also the only supplementary group.
    pub gid: u32,
}

impl User {
    /// `nobody` (65534:65534) on most Linux systems.
    pub const NOBODY: User = User { uid: 65534, gid: 65534 };
}
