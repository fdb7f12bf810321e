//! The policy step: a check over every call, after its arguments are validated and parsed and
//! before [`authorize`](crate::ToolBuilder::authorize), that allows it, denies it, or asks a
//! human first.
//!
//! A registry's policy is set with [`RegistryBuilder::policy`](crate::RegistryBuilder::policy)
//! (async) or [`policy_sync`](crate::RegistryBuilder::policy_sync); a tool can also ask for
//! approval itself with [`ToolBuilder::needs_approval`](crate::ToolBuilder::needs_approval).
//! A [`Decision::Deny`] wins over an [`Ask`](Decision::Ask), which wins over
//! [`Allow`](Decision::Allow).
//!
//! # Approvals are bound to the exact call
//!
//! An `Ask` parks the call with a pending result. Its [`Request`] carries the hex SHA-256
//! digest of the call (the tool's name, the canonical JSON of the arguments, and the call id)
//! and an id keyed to that digest with the registry's [`ApprovalKey`]. The call is resumed by
//! running it again with [`Answer`](crate::Answer) to that request. The resumed call passes
//! the policy only when the answer's id was issued for a call with the same digest, and the
//! answer accepts; anything else fails closed, as
//! [`FailureKind::Denied`](crate::FailureKind::Denied), with a message saying what did not
//! match: an empty id, an id this registry never issued, an answer made for other arguments
//! or another call, or an answer to a call that never asked. An answer to an approval is
//! consumed by the policy step: the handler never sees it.
//!
//! # Spent once
//!
//! An accepted approval is spent when the call it approves starts: after the policy step and
//! before `authorize` and the handler, its id goes to the registry's [`ApprovalStore`], and
//! the same answer presented again, by another invocation or by a repeat of the call in the
//! same dispatch, is refused as `Denied`, saying the approval was already used. The default
//! store is a [`MemoryApprovalStore`] of the registry's own; a journal makes single use hold
//! across processes. An id carries its expiry ([`Request::expires_at`] says it, one hour
//! after the request by default: [`RegistryBuilder::approval_ttl`](crate::RegistryBuilder::approval_ttl)),
//! an answer after it is refused, and so a store may forget an id once it has lapsed. Ids
//! have one spelling: each part lower-case hex of its exact length, with no sign, no white
//! space and nothing around it, so two different strings are never the same approval.
//!
//! # A handler's own requests
//!
//! A [`ToolResult::pending`](crate::ToolResult::pending) returned by a handler that runs
//! through a registry is bound like an approval: its request gets the call's digest, an
//! expiry (the handler's own `expires_at`, if it set one) and a keyed id (`inp-…`). An answer
//! to it reaches the handler only in a call with the same digest, and only once; an answer
//! whose id the registry did not issue is refused before the handler sees it. Outside a
//! registry ([`Tool::execute`](crate::Tool::execute)) a handler's answers reach it unchecked,
//! as in seed 002.
//!
//! The binding needs the call's arguments after the handler has taken them, so a registry
//! keeps a copy for tools built with
//! [`asks_for_input(true)`](crate::ToolBuilder::asks_for_input), and for those only. A handler
//! that asks without declaring it fails its call, with a failure that names the builder
//! method: its request is never handed out unbound.
//!
//! A tool that needs approval and whose handler then asks its own question completes in
//! three calls: the first parks it for approval; the approved second runs the handler, which
//! asks; the third carries the answer to that question, which stands in for the approval
//! (spent by the second call), since only a call that passed the policy step can have asked
//! it. A [`Decision::Deny`] still wins.
//!
//! # Calls without a call id
//!
//! A call made without a call id (Gemini sends none, and the core gives each parsed Gemini
//! call one of its own) is bound to the empty id: an approval for it fits a later id-less call
//! with the same tool and arguments, once.
//!
//! ```
//! # #[tokio::main(flavor = "current_thread")] async fn main() -> Result<(), Box<dyn std::error::Error>> {
//! use serde_json::json;
//! use toolwire::{Answer, FailureKind, Registry, Tool, ToolResult};
//!
//! let deploy = Tool::define("deploy")
//!     .needs_approval(true)
//!     .execute_sync(|args, _| ToolResult::ok(args.clone(), "deployed"))
//!     .build()?;
//! let registry = Registry::builder().register(deploy).seal()?;
//!
//! let first = registry.invoke("deploy", json!({"env": "prod"})).call_id("c1").await;
//! let request = first.result.pending_request().expect("the call waits for approval").clone();
//!
//! // The approval answers this call only: not the same tool with other arguments.
//! let other = registry
//!     .invoke("deploy", json!({"env": "staging"}))
//!     .call_id("c1")
//!     .answer(Answer::accept(request.id.clone(), json!(null)))
//!     .await;
//! assert_eq!(other.result.failure_kind(), Some(FailureKind::Denied));
//!
//! let approved = registry
//!     .invoke("deploy", json!({"env": "prod"}))
//!     .call_id("c1")
//!     .answer(Answer::accept(request.id, json!(null)))
//!     .await;
//! assert!(approved.result.is_success());
//! # Ok(()) }
//! ```

mod binding;
mod decision;
mod digest;
mod settings;
mod spent;

pub use binding::ApprovalKey;
pub(crate) use binding::{Purpose, check_id};
pub(crate) use decision::{AsyncPolicy, PolicyFn, SyncPolicy};
pub use decision::{Decision, Policy, Ruling};
pub use digest::{call_digest, canonical_json};
pub(crate) use settings::Approvals;
pub use settings::DEFAULT_APPROVAL_TTL;
pub(crate) use spent::Spender;
pub use spent::{
    ApprovalStore, DEFAULT_SPENT_CAPACITY, MemoryApprovalStore, SpendError, SpendFuture,
    SpentApproval,
};

pub use crate::record::{PolicyOutcome, PolicyRecord, Request};
