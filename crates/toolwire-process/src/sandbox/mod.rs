//! The sandbox of a command tool: what its program may read, write and reach, and how much it
//! may use, applied in the child before the program runs.
//!
//! The parent prepares a plan (paths resolved, a private temporary folder made) and hands it,
//! as JSON, to the [launcher](crate::launcher). The program then runs:
//!
//! - in namespaces of its own: a user namespace (it has no capabilities on the host, even when
//!   toolwire runs as root), a mount namespace (every file read-only but for the write paths,
//!   its own `/dev` and `/proc`, the protected paths read-only and the hidden ones out of
//!   reach), a PID namespace (it sees and signals only its own processes, which all die with
//!   the call), an IPC namespace, and a network namespace of its own when the network is off;
//! - with no capabilities, no controlling terminal, no inherited descriptor above 2,
//!   `no_new_privs`, and a parent-death signal;
//! - under Landlock (files, TCP, device ioctls, signal and abstract-socket scopes) and a
//!   seccomp filter (sockets, keyrings, terminal injection, setuid bits, nested namespaces).
//!
//! Nothing the sandbox asks for is best effort: where the kernel lacks a layer, the call fails
//! with a message that names it, unless the policy accepts running without that [`Layer`]
//! by name; [`Sandbox::None`] opts out of all of it.

mod backend;
#[cfg(target_os = "linux")]
mod caps;
#[cfg(target_os = "linux")]
mod enforce;
mod error;
#[cfg(target_os = "linux")]
mod fds;
mod features;
#[cfg(target_os = "linux")]
mod landlock;
pub(crate) mod launch;
mod layer;
mod limits;
#[cfg(target_os = "linux")]
mod mounts;
#[cfg(target_os = "linux")]
mod namespace;
#[cfg(target_os = "linux")]
mod netns;
mod paths;
mod pids;
pub(crate) mod plan;
mod probe;
mod rule;
#[cfg(target_os = "linux")]
mod seccomp;
mod show;
mod size;
#[cfg(target_os = "linux")]
pub(crate) mod stage;
mod temp;

use std::path::PathBuf;

use serde::{Deserialize, Serialize};

pub use backend::Backend;
pub use error::{SandboxError, SandboxErrorKind};
pub use launch::{LaunchGuard, launch};
pub use layer::{Layer, ParseLayerError};
pub use limits::Limits;
pub use rule::{Rule, RuleError, RuleKind, RuleValue, UnknownRule};

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
#[expect(
    clippy::large_enum_variant,
    reason = "made once per tool and matched by users as `Sandbox::Policy(policy)`; a box would buy nothing"
)]
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

/// What a sandboxed program may do: the [`Rule`]s a manifest may write, which say what each
/// setting means and which [`set`](Self::set) sets by name, and what the host adds.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub struct Policy {
    /// What it may read: [`Rule::Read`].
    pub read: Vec<PathBuf>,
    /// What it may write: [`Rule::Write`].
    pub write: Vec<PathBuf>,
    /// Whether its working folder is writable too: [`Rule::WriteWorkingFolder`].
    pub write_working_folder: bool,
    /// Whether it gets a private temporary folder: [`Rule::TempFolder`].
    pub temp_folder: bool,
    /// What network it may reach: [`Rule::Network`] and [`Rule::Ports`].
    pub network: Network,
    /// Its resource limits: [`Rule::Processes`] and the other limits.
    pub limits: Limits,
    /// Another user to run it as: [`Rule::User`]; `None` keeps the caller's.
    pub user: Option<User>,
    /// Files and folders it may read but never change, even beneath a write path: a
    /// manifest, a lock file, the host's configuration. Paths that do not exist are skipped.
    /// Every `.git` file and folder beneath a write path is protected too, always.
    pub protected: Vec<PathBuf>,
    /// Files and folders it may neither read nor change, wherever they are: a journal, the
    /// host's own state. Paths that do not exist are skipped.
    pub hidden: Vec<PathBuf>,
    /// Folders that other sandboxes of the same host may write (the write paths of its other
    /// tools): a symlink beneath one of them is never followed to find this policy's write
    /// paths or working folder, since a call of that other tool could have planted it.
    pub shared_writable: Vec<PathBuf>,
    /// The layers it may run without where the kernel lacks them: [`Rule::AcceptMissing`].
    pub accept_missing: Vec<Layer>,
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
            protected: Vec::new(),
            hidden: Vec::new(),
            shared_writable: Vec::new(),
            accept_missing: Vec::new(),
        }
    }
}

impl Policy {
    /// Whether this machine can enforce the policy, checked as a call would check it, without
    /// running anything: the OS has a backend, the kernel has the Landlock rights the policy
    /// needs, and, under root, a `pids` cgroup for the process limit. The namespaces are tried
    /// by [`probe`](Self::probe), which starts the launcher.
    ///
    /// # Errors
    ///
    /// [`SandboxErrorKind::Unsupported`], with the message a call would fail with: the
    /// missing feature and the opt-out.
    pub fn check_enforceable(&self) -> Result<(), SandboxError> {
        plan::check(self)
    }

    /// Applies the whole policy once, through `launcher`, in `cwd`, without running a
    /// program: every layer is set up as for a call, and what the kernel refused is reported.
    /// For `toolwire check`. Blocks for as long as the launcher takes (a few milliseconds).
    ///
    /// # Errors
    ///
    /// As a call would fail: the layer that is missing (and not accepted), or the setup step
    /// that failed.
    pub fn probe(
        &self,
        launcher: &crate::launcher::protocol::Launcher,
        cwd: &std::path::Path,
    ) -> Result<Report, SandboxError> {
        probe::run(self, launcher, cwd)
    }
}

/// What [`Policy::probe`] found: the layers in force, and those missing but accepted.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
#[non_exhaustive]
pub struct Report {
    /// The layers that were missing, which the policy accepts running without.
    pub missing: Vec<Layer>,
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

/// A user to run a sandboxed program as, by number; `#[non_exhaustive]`: build one with
/// [`new`](Self::new).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[non_exhaustive]
pub struct User {
    /// The user id.
    pub uid: u32,
    /// The group id, which is also the only supplementary group.
    pub gid: u32,
}

impl User {
    /// `nobody` (65534:65534) on most Linux systems.
    pub const NOBODY: User = User::new(65534, 65534);

    /// The user `uid`, in the group `gid`.
    ///
    /// ```
    /// use toolwire_process::sandbox::User;
    ///
    /// assert_eq!(User::new(65534, 65534), User::NOBODY);
    /// ```
    pub const fn new(uid: u32, gid: u32) -> Self {
        Self { uid, gid }
    }
}
