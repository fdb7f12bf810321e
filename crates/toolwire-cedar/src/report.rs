//! [`Report`]: what a check of the policies against the tools found, besides errors.

use cedar_policy::{ActionConstraint, Effect, EntityUid, ResourceConstraint};

use crate::source::Policies;
use crate::world::World;

/// What [`CedarPolicy::check_tools`](crate::CedarPolicy::check_tools) found: the tools no
/// policy permits, and the arguments no policy can see.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
#[non_exhaustive]
pub struct Report {
    /// How many policies are in force.
    pub policies: usize,
    /// The tools no `permit` can apply to, judged by the policies' scopes (the action and
    /// the resource), in name order: every call of them is denied.
    pub unpermitted: Vec<String>,
    /// Each tool's top-level arguments that have no single Cedar type (no `type`, or several),
    /// which `context.input` leaves out, as `(tool, argument)` in name order.
    pub hidden: Vec<(String, String)>,
}

impl Report {
    pub(crate) fn new(policies: &Policies, world: &World) -> Self {
        let permits: Vec<_> =
            policies.set.policies().filter(|p| p.effect() == Effect::Permit).collect();
        let mut unpermitted: Vec<String> = world
            .tools
            .iter()
            .filter(|(_, entry)| {
                !permits.iter().any(|p| {
                    fits_action(&p.action_constraint(), &entry.action)
                        && fits_resource(&p.resource_constraint(), &entry.resource)
                })
            })
            .map(|(name, _)| name.clone())
            .collect();
        unpermitted.sort();
        let mut hidden: Vec<(String, String)> = world
            .tools
            .iter()
            .flat_map(|(name, entry)| {
                entry.hidden.iter().map(move |arg| (name.clone(), arg.clone()))
            })
            .collect();
        hidden.sort();
        Report { policies: policies.order.len(), unpermitted, hidden }
    }
}

/// Whether a policy with `constraint` on its action can apply to `action`.
pub(crate) fn fits_action(constraint: &ActionConstraint, action: &EntityUid) -> bool {
    match constraint {
        ActionConstraint::Any => true,
        ActionConstraint::Eq(one) => one == action,
        ActionConstraint::In(list) => list.contains(action),
    }
}

/// Whether a policy with `constraint` on its resource can apply to the tool `resource`.
pub(crate) fn fits_resource(constraint: &ResourceConstraint, resource: &EntityUid) -> bool {
    match constraint {
        ResourceConstraint::Eq(one) => one == resource,
        ResourceConstraint::In(group) => group == resource,
        _ => true,
    }
}
