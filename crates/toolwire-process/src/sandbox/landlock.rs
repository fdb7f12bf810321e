//! Landlock: the file, TCP, device-ioctl and scope rules, probed in the parent and applied in
//! the launcher.

use std::sync::OnceLock;

use landlock::{
    ABI, Access, AccessFs, AccessNet, BitFlags, CompatLevel, Compatible, NetPort, Ruleset,
    RulesetAttr, RulesetCreated, RulesetCreatedAttr, RulesetError, RulesetStatus, Scope,
    path_beneath_rules,
};

use super::{Network, SandboxError};

/// What a program may reach, as Landlock enforces it.
#[derive(Debug)]
pub(crate) struct Rules<'a> {
    /// Readable paths.
    pub(crate) read: &'a [std::path::PathBuf],
    /// Writable paths.
    pub(crate) write: &'a [std::path::PathBuf],
    /// The network rules.
    pub(crate) network: &'a Network,
    /// Whether device ioctls are handled (ABI 5).
    pub(crate) device_ioctl: bool,
    /// Whether the signal and abstract-socket scopes are handled (ABI 6).
    pub(crate) scopes: bool,
}

/// The ABI whose rights are handled: file rights up to truncation (ABI 3) and TCP (ABI 4).
const FILES_ABI: ABI = ABI::V3;
/// The ABI of the TCP rules.
const NET_ABI: ABI = ABI::V4;
/// The ABI of the scopes.
const SCOPES_ABI: ABI = ABI::V6;
/// Device files every program may write, since writing them changes nothing: the sink
/// (shell scripts redirect to `/dev/null` all the time) and the two sources that ignore or
/// refuse what is written.
const SINKS: [&str; 3] = ["/dev/null", "/dev/zero", "/dev/full"];

/// Checks that this kernel can enforce the file rules, and the TCP rules unless `network` is
/// [`Network::On`], by creating (not applying) the ruleset.
///
/// # Errors
///
/// Unsupported, naming the Landlock ABI that is missing.
pub(crate) fn probe(network: &Network) -> Result<(), SandboxError> {
    files().and_then(Ruleset::create).map_err(|error| {
        SandboxError::unsupported(format!(
            "this kernel has no Landlock file rules (Landlock ABI 3, Linux 6.2, enabled in the \
             kernel's lsm= list): {error}"
        ))
    })?;
    if *network != Network::On {
        net(files()).and_then(Ruleset::create).map_err(|error| {
            SandboxError::unsupported(format!(
                "this kernel has no Landlock TCP rules (Landlock ABI 4, Linux 6.7), which \
                 network = \"off\" and a list of ports need: {error}"
            ))
        })?;
    }
    Ok(())
}

/// Whether this kernel has the device ioctl right (ABI 5), asked once.
pub(crate) fn has_device_ioctl() -> Result<(), String> {
    static FOUND: OnceLock<Result<(), String>> = OnceLock::new();
    FOUND
        .get_or_init(|| {
            files()
                .and_then(|ruleset| ruleset.handle_access(AccessFs::IoctlDev))
                .and_then(Ruleset::create)
                .map(drop)
                .map_err(|error| error.to_string())
        })
        .clone()
}

/// Whether this kernel has the signal and abstract Unix socket scopes (ABI 6), asked once.
pub(crate) fn has_scopes() -> Result<(), String> {
    static FOUND: OnceLock<Result<(), String>> = OnceLock::new();
    FOUND
        .get_or_init(|| {
            files()
                .and_then(|ruleset| ruleset.scope(Scope::from_all(SCOPES_ABI)))
                .and_then(Ruleset::create)
                .map(drop)
                .map_err(|error| error.to_string())
        })
        .clone()
}

/// A ruleset handling every file right, which it must enforce or fail.
fn files() -> Result<Ruleset, RulesetError> {
    Ruleset::default()
        .set_compatibility(CompatLevel::HardRequirement)
        .handle_access(AccessFs::from_all(FILES_ABI))
}

/// `ruleset` handling TCP bind and connect too.
fn net(ruleset: Result<Ruleset, RulesetError>) -> Result<Ruleset, RulesetError> {
    ruleset?.handle_access(AccessNet::from_all(NET_ABI))
}

/// `ruleset` with the optional rights of `rules`.
fn optional(ruleset: Ruleset, rules: &Rules<'_>) -> Result<Ruleset, RulesetError> {
    let ruleset =
        if rules.device_ioctl { ruleset.handle_access(AccessFs::IoctlDev)? } else { ruleset };
    if rules.scopes { ruleset.scope(Scope::from_all(SCOPES_ABI)) } else { Ok(ruleset) }
}

/// What a write path allows: everything handled but making device files, which a program
/// never needs and which would reach a disk.
fn writable(device_ioctl: bool) -> BitFlags<AccessFs> {
    let mut rights = AccessFs::from_all(FILES_ABI) & !(AccessFs::MakeBlock | AccessFs::MakeChar);
    if device_ioctl {
        rights |= AccessFs::IoctlDev;
    }
    rights
}

/// Restricts this process (and so the program it starts) to `rules`, with `no_new_privs`.
///
/// # Errors
///
/// A message saying which rule could not be made or enforced.
pub(crate) fn restrict(rules: &Rules<'_>) -> Result<(), String> {
    let ruleset = if *rules.network == Network::On { files() } else { net(files()) };
    let created = ruleset
        .and_then(|ruleset| optional(ruleset, rules))
        .and_then(Ruleset::create)
        .and_then(|created| {
            created.add_rules(path_beneath_rules(rules.read, AccessFs::from_read(FILES_ABI)))
        })
        .and_then(|created| {
            created.add_rules(path_beneath_rules(rules.write, writable(rules.device_ioctl)))
        })
        .and_then(|created| created.add_rules(path_beneath_rules(SINKS, AccessFs::WriteFile)))
        .and_then(|created| ports(created, rules.network))
        .map_err(|error| format!("cannot make the Landlock rules: {error}"))?;
    let status = created
        .no_new_privs(true)
        .restrict_self()
        .map_err(|error| format!("cannot enforce the Landlock rules: {error}"))?;
    if status.ruleset != RulesetStatus::FullyEnforced || !status.no_new_privs {
        return Err(format!("the Landlock rules were not fully enforced: {status:?}"));
    }
    Ok(())
}

/// The TCP ports that `network` lets the program connect to.
fn ports(created: RulesetCreated, network: &Network) -> Result<RulesetCreated, RulesetError> {
    let Network::Ports(ports) = network else { return Ok(created) };
    created.add_rules(
        ports.iter().map(|port| Ok::<_, RulesetError>(NetPort::new(*port, AccessNet::ConnectTcp))),
    )
}
