//! The policy step: the tool's own approval rule and the registry's policy decide; an answer
//! is checked against the call it was issued for, and spent.

use std::panic::{AssertUnwindSafe, catch_unwind};
use std::sync::Arc;

use serde_json::{Value, json};

use super::options::RulingSlot;
use super::outcome::{denied, hook_panicked};
use crate::context::ToolContext;
use crate::policy::{
    Approvals, Decision, PolicyFn, Purpose, Ruling, SpendError, Spender, SpentApproval,
    call_digest, check_id,
};
use crate::record::{Answer, PolicyOutcome, PolicyRecord, Request, ToolResult};
use crate::tool::Tool;

/// What the policy step needs besides the call: the registry's policy and approval settings.
pub(super) struct Gate {
    pub(super) policy: Option<PolicyFn>,
    /// Where the step's record goes, for a registry's receipt.
    ruling: Option<RulingSlot>,
    /// The registry's settings; `None` for a call made outside a registry.
    pub(super) approvals: Option<Arc<Approvals>>,
    /// Whether the call carries an answer that a host's store must spend, with a future.
    pub(super) spends_async: bool,
}

impl Gate {
    pub(super) fn new(
        policy: Option<PolicyFn>,
        approvals: Option<Arc<Approvals>>,
        answer: Option<&Answer>,
        ruling: Option<RulingSlot>,
    ) -> Self {
        let settings = approvals.as_deref().unwrap_or_else(|| Approvals::process());
        let spends_async = answer.is_some() && settings.store.is_async();
        Self { policy, ruling, approvals, spends_async }
    }

    /// Whether the step has anything to do for this call.
    pub(super) fn applies(&self, tool: &Tool, ctx: &ToolContext) -> bool {
        self.policy.is_some() || tool.inner().hooks.approval.is_some() || ctx.answer.is_some()
    }

    /// Whether the step needs a future (an async policy, or a host's store), so it runs
    /// inside the raced future.
    pub(super) fn is_async(&self) -> bool {
        matches!(self.policy, Some(PolicyFn::Async(_))) || self.spends_async
    }

    /// The settings ids are made and checked with: the registry's, or the process's.
    pub(super) fn settings(&self) -> &Approvals {
        self.approvals.as_deref().unwrap_or_else(|| Approvals::process())
    }

    /// The tool's own rule and, when sync, the registry's policy; a panic fails the call.
    pub(super) fn decide_now(
        &self,
        tool: &Tool,
        args: &Value,
        ctx: &ToolContext,
    ) -> Result<Ruling, ToolResult> {
        let own = Ruling::from(tool_decision(tool, args)?);
        let registry = match &self.policy {
            Some(PolicyFn::Sync(policy)) => {
                catch_unwind(AssertUnwindSafe(|| policy(tool, args, ctx)))
                    .map_err(|payload| hook_panicked(tool.name(), "policy", payload))?
            }
            _ => Ruling::from(Decision::Allow),
        };
        Ok(own.and(registry))
    }

    /// Applies `decision` to the call, and returns the answer it must spend before it goes
    /// on, if any.
    ///
    /// - A denial fails the call.
    /// - An answer to an approval is checked against this call and taken out of the context,
    ///   so the handler never sees it; a declined one fails the call.
    /// - An answer to a handler's own bound request is checked and left for the handler. It
    ///   stands in for the approval the call passed before its handler asked.
    /// - Any other answer fails the call when the decision asks, or in a registry (which
    ///   binds every request it hands out); outside one it goes to the handler, unchecked.
    /// - With no answer, an `Ask` parks the call with a bound request.
    ///
    /// The verdict goes on the invocation's span as `toolwire.policy`, with the ids of the
    /// policies that decided as `toolwire.policy.ids`, and into the receipt's record.
    pub(super) fn settle(
        &self,
        tool: &Tool,
        args: &Value,
        ctx: &mut ToolContext,
        ruling: Ruling,
    ) -> Result<Option<SpentApproval>, ToolResult> {
        let Ruling { decision, policies } = ruling;
        let refusal = matches!(decision, Decision::Deny(_));
        // Who answered, read before `apply` takes an approval's answer out of the context.
        let answered =
            ctx.answer.as_deref().map(|answer| (answer.ok, answer.by.clone(), answer.at.clone()));
        let settled = self.apply(tool, args, ctx, decision);
        let outcome = match &settled {
            Err(_) if refusal => PolicyOutcome::Denied,
            Err(result) if result.pending_request().is_some() => PolicyOutcome::Asked,
            Err(_) => PolicyOutcome::Refused,
            Ok(Some(_)) => PolicyOutcome::Approved,
            Ok(None) => PolicyOutcome::Allowed,
        };
        super::span::record_policy(outcome.as_str(), &policies);
        let mut record = PolicyRecord::new(outcome, policies);
        // The approver is named where the answer decided: it approved, or it declined. A call
        // the policy denied, or whose answer was refused as forged or spent, names nobody.
        let decided = |ok: bool| match outcome {
            PolicyOutcome::Approved => true,
            PolicyOutcome::Refused => !ok,
            _ => false,
        };
        if let Some((_, by, at)) = answered.filter(|(ok, _, _)| decided(*ok)) {
            (record.answered_by, record.answered_at) = (by, at);
        }
        self.keep(|slot| *slot = Some(record));
        settled
    }

    /// Changes the step's record for the receipt, if the call has one.
    fn keep(&self, change: impl FnOnce(&mut Option<PolicyRecord>)) {
        if let Some(slot) = &self.ruling {
            change(&mut slot.lock().unwrap_or_else(std::sync::PoisonError::into_inner));
        }
    }

    /// The failure of a call whose answer could not be spent: the approval is refused, on
    /// the span and in the receipt's record.
    fn spend_failed(&self, tool: &Tool, why: &SpendError) -> ToolResult {
        super::span::record_policy(PolicyOutcome::Refused.as_str(), &[]);
        self.keep(|record| {
            if let Some(record) = record {
                record.outcome = PolicyOutcome::Refused;
            }
        });
        denied(tool.name(), &format!("approval not granted: {why}"))
    }

    fn apply(
        &self,
        tool: &Tool,
        args: &Value,
        ctx: &mut ToolContext,
        decision: Decision,
    ) -> Result<Option<SpentApproval>, ToolResult> {
        if let Decision::Deny(why) = decision {
            return Err(denied(tool.name(), &why));
        }
        let asks = matches!(decision, Decision::Ask(_));
        let Some(answer) = ctx.answer.as_deref() else {
            return match decision {
                Decision::Ask(request) => {
                    let digest = self.digest(tool, args, ctx);
                    let bound = self.settings().bind(request, Purpose::Approval, digest);
                    Err(ToolResult::pending(bound))
                }
                _ => Ok(None),
            };
        };
        let purpose = Purpose::of(&answer.id);
        if purpose.is_none() && !asks && self.approvals.is_none() {
            return Ok(None); // seed 002: a direct call's handler reads its own answer
        }
        let digest = self.digest(tool, args, ctx);
        // An id with no keyed shape fails the check too, in the check's own words.
        let issued = check_id(&self.settings().key, answer, &digest).map_err(|why| {
            let why = match purpose {
                None if !asks => format!("{why} (this registry binds every request it makes)"),
                _ => why,
            };
            denied(tool.name(), &format!("approval not granted: {why}"))
        })?;
        let spend = SpentApproval { id: answer.id.clone(), digest, expires_at: issued.expires_at };
        if issued.purpose == Purpose::Approval {
            let answer = ctx.answer.take();
            if let Some(answer) = answer.filter(|a| !a.ok) {
                let reason = answer.reason.as_deref().unwrap_or("no reason given");
                return Err(denied(tool.name(), &format!("approval was declined: {reason}")));
            }
        }
        Ok(Some(spend))
    }

    /// Spends `approval` in the registry's in-memory store, at once; a host's store is spent
    /// through [`spend`](Self::spend) instead, inside the raced future.
    pub(super) fn spend_now(
        &self,
        tool: &Tool,
        approval: &SpentApproval,
    ) -> Result<(), ToolResult> {
        match &self.settings().store {
            Spender::Memory(store) => store
                .spend_now(&approval.id, approval.expires_at)
                .map_err(|why| self.spend_failed(tool, &why)),
            // Not reached: a call with a host's store is raced, and spends through `spend`.
            Spender::Host(_) => {
                Err(self.spend_failed(tool, &SpendError::Store("no future to spend it in".into())))
            }
        }
    }

    /// Spends `approval` in whichever store the settings have.
    pub(super) async fn spend(
        &self,
        tool: &Tool,
        approval: SpentApproval,
    ) -> Result<(), ToolResult> {
        match &self.settings().store {
            Spender::Memory(_) => self.spend_now(tool, &approval),
            Spender::Host(store) => {
                let spending = catch_unwind(AssertUnwindSafe(|| store.spend(approval)));
                let spent = match spending {
                    Ok(future) => super::race::catching(future).await,
                    Err(payload) => Err(payload),
                };
                match spent {
                    Ok(Ok(())) => Ok(()),
                    Ok(Err(why)) => Err(self.spend_failed(tool, &why)),
                    Err(payload) => Err(hook_panicked(tool.name(), "approval store", payload)),
                }
            }
        }
    }

    fn digest(&self, tool: &Tool, args: &Value, ctx: &ToolContext) -> String {
        call_digest(tool.name(), ctx.call_id.as_deref().unwrap_or_default(), args)
    }
}

/// The tool's own approval rule: `Ask` with a request that shows the call.
fn tool_decision(tool: &Tool, args: &Value) -> Result<Decision, ToolResult> {
    let Some(rule) = &tool.inner().hooks.approval else { return Ok(Decision::Allow) };
    match catch_unwind(AssertUnwindSafe(|| rule(args))) {
        Ok(false) => Ok(Decision::Allow),
        Ok(true) => {
            let prompt = format!("allow a call of {:?}?", tool.name());
            let data = json!({"tool": tool.name(), "arguments": args});
            Ok(Decision::Ask(Request::new("approval", prompt).data(data)))
        }
        Err(payload) => Err(hook_panicked(tool.name(), "approval rule", payload)),
    }
}
