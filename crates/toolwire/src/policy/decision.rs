//! [`Decision`] and [`Ruling`]: what a policy says of a call; the [`Policy`] trait; and the
//! policy functions, erased.

use std::future::Future;
use std::pin::Pin;
use std::sync::Arc;

use serde_json::Value;

use crate::context::ToolContext;
use crate::record::Request;
use crate::tool::Tool;

/// What a policy decides about one call.
#[derive(Debug, Clone, PartialEq)]
pub enum Decision {
    /// The call goes on to `authorize` and the handler.
    Allow,
    /// The call fails with [`FailureKind::Denied`](crate::FailureKind::Denied) and this reason.
    Deny(String),
    /// The call is parked with a pending result carrying this request, bound to the call;
    /// it goes on only when resumed with an [`Answer`](crate::Answer) that accepts it.
    Ask(Request),
}

impl Decision {
    /// Combines two decisions: a denial wins, then a request to ask, then an allowance.
    pub(crate) fn and(self, other: Decision) -> Decision {
        match (self, other) {
            (deny @ Decision::Deny(_), _) | (_, deny @ Decision::Deny(_)) => deny,
            (ask @ Decision::Ask(_), _) | (_, ask @ Decision::Ask(_)) => ask,
            (Decision::Allow, Decision::Allow) => Decision::Allow,
        }
    }
}

/// A [`Decision`] and the ids of the policies that made it, which the call's
/// [`Receipt`](crate::Receipt) and span record. A policy that names no rules returns a bare
/// `Decision`, which converts into a ruling with no ids.
///
/// ```
/// use toolwire::policy::{Decision, Ruling};
///
/// let ruling = Ruling::from(Decision::Deny("production is frozen".into())).by(["freeze"]);
/// assert_eq!(&*ruling.policies[0], "freeze");
/// ```
#[derive(Debug, Clone, PartialEq)]
#[non_exhaustive]
pub struct Ruling {
    /// What was decided.
    pub decision: Decision,
    /// The ids of the policies that decided it.
    pub policies: Vec<Arc<str>>,
}

impl Ruling {
    /// `decision`, made by the policies `ids`.
    pub fn by<I, S>(mut self, ids: I) -> Self
    where
        I: IntoIterator<Item = S>,
        S: Into<Arc<str>>,
    {
        self.policies.extend(ids.into_iter().map(Into::into));
        self
    }

    /// Combines two rulings as [`Decision`]s combine; the ids are those of the ruling whose
    /// decision stands (`other`'s, when both decide the same).
    pub(crate) fn and(self, other: Ruling) -> Ruling {
        let rank = |d: &Decision| match d {
            Decision::Allow => 0,
            Decision::Ask(_) => 1,
            Decision::Deny(_) => 2,
        };
        let policies = if rank(&self.decision) > rank(&other.decision) {
            self.policies
        } else {
            other.policies
        };
        Ruling { decision: self.decision.and(other.decision), policies }
    }
}

impl From<Decision> for Ruling {
    fn from(decision: Decision) -> Self {
        Ruling { decision, policies: Vec::new() }
    }
}

/// A registry's policy, as a type: it decides each call after its arguments are validated
/// and before the tool's `authorize`. Closures are set with
/// [`policy_sync`](crate::RegistryBuilder::policy_sync) and
/// [`policy_async`](crate::RegistryBuilder::policy_async); a type that implements this trait
/// (such as `toolwire-cedar`'s `CedarPolicy`) is set with
/// [`policy`](crate::RegistryBuilder::policy).
///
/// It runs on the caller's task, within the call's poll, so it must not block. A panic in it
/// fails the call, as a [`FailureKind::Handler`](crate::FailureKind::Handler) naming the policy.
///
/// ```
/// # fn main() -> Result<(), Box<dyn std::error::Error>> {
/// use serde_json::{Value, json};
/// use toolwire::policy::{Decision, Policy, Ruling};
/// use toolwire::{Registry, Tool, ToolContext, ToolResult};
///
/// struct ReadOnly;
///
/// impl Policy for ReadOnly {
///     fn decide(&self, tool: &Tool, _args: &Value, _ctx: &ToolContext) -> Ruling {
///         match tool.annotations().read_only_hint {
///             Some(true) => Decision::Allow.into(),
///             _ => Ruling::from(Decision::Deny("only read-only tools".into())).by(["read-only"]),
///         }
///     }
/// }
///
/// let ls = Tool::define("ls").execute_sync(|_, _| ToolResult::ok(json!([]), "")).build()?;
/// let registry = Registry::builder().register(ls).policy(ReadOnly).seal()?;
/// # let _ = registry; Ok(()) }
/// ```
pub trait Policy: Send + Sync + 'static {
    /// Decides the call of `tool` with the validated `args`; `ctx` says who calls
    /// ([`ToolContext::principal`](crate::ToolContext::principal)) and carries the caller's
    /// state.
    fn decide(&self, tool: &Tool, args: &Value, ctx: &ToolContext) -> Ruling;

    /// Checks the policy against the tools of the registry it is sealed into, once, when
    /// [`seal`](crate::RegistryBuilder::seal) runs: a policy that cannot hold for these tools
    /// (a rule on an argument no tool has) fails the seal with
    /// [`SealErrorKind::Policy`](crate::SealErrorKind::Policy) and this message. A policy
    /// may also keep what it learns of the tools here. The default accepts any tools.
    fn check(&self, tools: &[Tool]) -> Result<(), String> {
        let _ = tools;
        Ok(())
    }
}

/// A sync policy.
pub(crate) type SyncPolicy = dyn Fn(&Tool, &Value, &ToolContext) -> Ruling + Send + Sync;
/// An async policy, given its own copies of the tool, the arguments and the context.
pub(crate) type AsyncPolicy =
    dyn Fn(Tool, Value, ToolContext) -> Pin<Box<dyn Future<Output = Ruling> + Send>> + Send + Sync;

/// A registry's policy, with its generics erased.
#[derive(Clone)]
pub(crate) enum PolicyFn {
    Sync(Arc<SyncPolicy>),
    Async(Arc<AsyncPolicy>),
}

impl std::fmt::Debug for PolicyFn {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(match self {
            PolicyFn::Sync(_) => "Policy::Sync(..)",
            PolicyFn::Async(_) => "Policy::Async(..)",
        })
    }
}
