//! [`Decision`]: what a policy says of a call, and the policy functions, erased.

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

/// A sync policy.
type SyncPolicy = dyn Fn(&Tool, &Value, &ToolContext) -> Decision + Send + Sync;
/// An async policy, given its own copies of the tool, the arguments and the context.
pub(crate) type AsyncPolicy = dyn Fn(Tool, Value, ToolContext) -> Pin<Box<dyn Future<Output = Decision> + Send>>
    + Send
    + Sync;

/// A registry's policy, with its generics erased.
#[derive(Clone)]
pub(crate) enum Policy {
    Sync(Arc<SyncPolicy>),
    Async(Arc<AsyncPolicy>),
}

impl std::fmt::Debug for Policy {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(match self {
            Policy::Sync(_) => "Policy::Sync(..)",
            Policy::Async(_) => "Policy::Async(..)",
        })
    }
}
