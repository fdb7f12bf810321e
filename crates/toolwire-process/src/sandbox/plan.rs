//! The parent's half of a sandbox: a [`Plan`] with every path resolved, checked against what
//! the kernel can enforce, and the resources of the call (its temporary folder, its cgroup).

use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};
use tempfile::TempDir;

use super::features::Features;
use super::paths::{Resolver, git_folders};
use super::pids::PidsCgroup;
use super::{Layer, Limits, Network, Policy, SandboxError, User};

/// What the launcher applies, sent to it as JSON in [`PLAN_ENV`](crate::launcher::PLAN_ENV):
/// what the policy alone decides, and the call, unless the call comes later on the
/// launcher's stdin (a launcher started ahead of its call).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub(crate) struct Plan {
    /// The network rules.
    pub(crate) network: Network,
    /// The rlimits.
    pub(crate) limits: Limits,
    /// Whether `limits.processes` is applied as `RLIMIT_NPROC` (not under root).
    pub(crate) nproc_rlimit: bool,
    /// The `pids` cgroup to join (under root).
    pub(crate) cgroup: Option<PathBuf>,
    /// The user to become.
    pub(crate) user: Option<User>,
    /// The optional Landlock rights this kernel has and the plan applies.
    pub(crate) features: Features,
    /// Whether the program may run without namespaces where the kernel refuses them.
    pub(crate) namespaces_optional: bool,
    /// The process that starts the launcher: the launcher stops with it.
    pub(crate) parent: u32,
    /// The network namespace to join when the network is off, shared by the host's calls:
    /// the host's pid and its descriptor; `None` makes a new one.
    pub(crate) netns: Option<(u32, i32)>,
    /// Set up every layer, then exit without running the program.
    pub(crate) probe: bool,
    /// The call, when it is known as the launcher starts.
    pub(crate) call: Option<Call>,
}

/// One call: its paths, all absolute and resolved, and its program.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub(crate) struct Call {
    /// Readable (and executable), with everything beneath.
    pub(crate) read: Vec<PathBuf>,
    /// Writable, with everything beneath; none goes through a symlink.
    pub(crate) write: Vec<PathBuf>,
    /// Read-only even beneath a write path: the policy's, and every `.git` beneath a write
    /// path. Each exists.
    pub(crate) protected: Vec<PathBuf>,
    /// Out of reach. Each exists.
    pub(crate) hidden: Vec<PathBuf>,
    /// The working folder.
    pub(crate) cwd: PathBuf,
    /// The private temporary folder, the program's `TMPDIR`.
    pub(crate) temp: Option<PathBuf>,
    /// The program's path, its `argv[0]`, and its arguments.
    pub(crate) argv: Vec<String>,
}

impl Plan {
    /// Whether the program may run where the kernel lacks `layer`.
    pub(crate) fn accepts(&self, layer: Layer) -> bool {
        match layer {
            Layer::Namespaces => self.namespaces_optional,
            Layer::DeviceIoctl | Layer::Scopes => true,
        }
    }
}

/// What a launcher holds while it runs: its plan and, under root, its `pids` cgroup, killed
/// and removed when this drops.
#[derive(Debug)]
pub(crate) struct Launch {
    /// The plan, without the call when the call comes later.
    pub(crate) plan: Plan,
    _pids: Option<PidsCgroup>,
}

/// What a call holds while it runs: its private temporary folder, removed when this drops.
#[derive(Debug)]
pub(crate) struct CallGuard {
    _temp: Option<TempDir>,
}

/// Checks, without running anything, that this machine can enforce `policy`.
///
/// # Errors
///
/// Unsupported, naming what is missing.
pub(crate) fn check(policy: &Policy) -> Result<(), SandboxError> {
    Features::probe(policy)?;
    if policy.limits.processes.is_some() && nix::unistd::geteuid().is_root() {
        super::pids::check_available()?;
    }
    Ok(())
}

impl Launch {
    /// What `policy` alone decides, for a launcher whose call comes later.
    ///
    /// # Errors
    ///
    /// Unsupported when this OS or kernel cannot enforce the policy; setup when the cgroup
    /// cannot be made.
    pub(crate) fn prepare(policy: &Policy) -> Result<Self, SandboxError> {
        let features = Features::probe(policy)?;
        let root = nix::unistd::geteuid().is_root();
        let pids = match policy.limits.processes {
            Some(max) if root => Some(PidsCgroup::create(max)?),
            _ => None,
        };
        let plan = Plan {
            network: policy.network.clone(),
            limits: policy.limits,
            nproc_rlimit: pids.is_none(),
            cgroup: pids.as_ref().map(|pids| pids.path().to_owned()),
            user: policy.user,
            features,
            namespaces_optional: policy.accept_missing.contains(&Layer::Namespaces),
            parent: std::process::id(),
            netns: shared_netns(&policy.network),
            probe: false,
            call: None,
        };
        Ok(Self { plan, _pids: pids })
    }

    /// The plan as JSON.
    ///
    /// # Errors
    ///
    /// Setup, when it cannot be written (a path that is not UTF-8).
    pub(crate) fn to_json(&self) -> Result<String, SandboxError> {
        serde_json::to_string(&self.plan)
            .map_err(|error| SandboxError::setup(format!("cannot write the sandbox plan: {error}")))
    }
}

/// The shared network namespace, for a network that is off.
#[cfg(target_os = "linux")]
fn shared_netns(network: &Network) -> Option<(u32, i32)> {
    (*network == Network::Off).then(super::netns::shared).flatten()
}

#[cfg(not(target_os = "linux"))]
fn shared_netns(_network: &Network) -> Option<(u32, i32)> {
    None
}

impl Call {
    /// The call of `argv` under `policy` in `cwd`: every path resolved, a temporary folder
    /// made.
    ///
    /// # Errors
    ///
    /// Setup when a path does not exist, goes through a symlink a sandbox could have planted,
    /// or the temporary folder cannot be made.
    pub(crate) fn prepare(
        policy: &Policy,
        cwd: &Path,
        argv: Vec<String>,
    ) -> Result<(Self, CallGuard), SandboxError> {
        let paths = resolve(policy, cwd)?;
        let temp = policy.temp_folder.then(|| super::temp::folder(policy.user)).transpose()?;
        let mut write = paths.write;
        let temp_path = match &temp {
            Some(temp) => {
                Some(Resolver::new(&paths.cwd, []).resolve(temp.path(), "temporary folder")?)
            }
            None => None,
        };
        write.extend(temp_path.clone());
        let call = Call {
            read: paths.read,
            write,
            protected: paths.protected,
            hidden: paths.hidden,
            cwd: paths.cwd,
            temp: temp_path,
            argv,
        };
        Ok((call, CallGuard { _temp: temp }))
    }
}

/// A policy's paths, resolved.
struct Paths {
    cwd: PathBuf,
    read: Vec<PathBuf>,
    write: Vec<PathBuf>,
    protected: Vec<PathBuf>,
    hidden: Vec<PathBuf>,
}

/// Resolves the working folder, then the write paths (a symlink in a folder that this or
/// another sandbox may write is refused), the read paths likewise, and finds the `.git`
/// beneath every write path.
fn resolve(policy: &Policy, cwd: &Path) -> Result<Paths, SandboxError> {
    let absolute = std::env::current_dir()
        .map(|here| here.join(cwd))
        .map_err(|error| SandboxError::setup(format!("no current folder: {error}")))?;
    let shared = policy.shared_writable.iter().map(|path| absolute.join(path));
    let mut resolver = Resolver::new(&absolute, shared);
    let cwd = resolver.resolve(&absolute, "working folder")?;
    let mut write = Vec::new();
    if policy.write_working_folder {
        resolver.distrust(cwd.clone());
        write.push(cwd.clone());
    }
    // First as written, so that each write path distrusts links in the others too.
    for path in &policy.write {
        let lenient = Resolver::new(&cwd, []).resolve(path, "write")?;
        resolver.distrust(lenient);
    }
    for path in &policy.write {
        write.push(resolver.resolve(path, "write")?);
    }
    let read =
        policy.read.iter().map(|path| resolver.resolve(path, "read")).collect::<Result<_, _>>()?;
    let existing = |paths: &[PathBuf]| -> Vec<PathBuf> {
        paths.iter().filter_map(|path| absolute.join(path).canonicalize().ok()).collect()
    };
    let mut protected = existing(&policy.protected);
    protected.extend(git_folders(&write));
    Ok(Paths { cwd, read, write, protected, hidden: existing(&policy.hidden) })
}
