//! Landlock: the file and TCP rules, probed in the parent and applied in the launcher.

use landlock::{
    ABI, Access, AccessFs, AccessNet, CompatLevel, Compatible, NetPort, Ruleset, RulesetAttr,
    RulesetCreated, RulesetCreatedAttr, RulesetError, RulesetStatus, path_beneath_rules,
};

use super::plan::Plan;
use super::{Network, SandboxError};

/// The ABI whose rights are handled: file rights up to truncation (ABI 3) and TCP (ABI 4).
const FILES_ABI: ABI = ABI::V3;
/// The ABI of the TCP rules.
const NET_ABI: ABI = ABI::V4;
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

/// Restricts this process (and so the program it becomes) to `plan`, with `no_new_privs`.
///
/// # Errors
///
/// A message saying which rule could not be made or enforced.
pub(crate) fn restrict(plan: &Plan) -> Result<(), String> {
    let ruleset = if plan.network == Network::On { files() } else { net(files()) };
    let created = ruleset
        .and_then(Ruleset::create)
        .and_then(|created| {
            created.add_rules(path_beneath_rules(&plan.read, AccessFs::from_read(FILES_ABI)))
        })
        .and_then(|created| {
            created.add_rules(path_beneath_rules(&plan.write, AccessFs::from_all(FILES_ABI)))
        })
        .and_then(|created| created.add_rules(path_beneath_rules(SINKS, AccessFs::WriteFile)))
        .and_then(|created| ports(created, &plan.network))
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
