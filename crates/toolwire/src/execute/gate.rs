//! The policy step: the tool's own approval rule and the registry's policy decide, and an
//! answer to an approval is checked against the call it was issued for.

use std::panic::{AssertUnwindSafe, catch_unwind};

use serde_json::{Value, json};

use super::outcome::{denied, hook_panicked};
use crate::context::ToolContext;
use crate::policy::{
    ApprovalKey, Decision, Policy, approval_id, call_digest, check_approval, is_approval_id,
};
use crate::record::{Request, ToolResult};
use crate::tool::Tool;

/// What the policy step needs besides the call: the registry's policy and approval key.
pub(super) struct Gate {
    pub(super) policy: Option<Policy>,
    pub(super) key: Option<ApprovalKey>,
}

impl Gate {
    /// Whether the step has anything to do for this call.
    pub(super) fn applies(&self, tool: &Tool, ctx: &ToolContext) -> bool {
        self.policy.is_some() || tool.inner().hooks.approval.is_some() || ctx.answer.is_some()
    }

    /// Whether the registry's policy is async, so the step runs inside the raced future.
    pub(super) fn is_async(&self) -> bool {
        matches!(self.policy, Some(Policy::Async(_)))
    }

    /// The tool's own rule and, when sync, the registry's policy; a panic fails the call.
    pub(super) fn decide_now(
        &self,
        tool: &Tool,
        args: &Value,
        ctx: &ToolContext,
    ) -> Result<Decision, ToolResult> {
        let own = tool_decision(tool, args)?;
        let registry = match &self.policy {
            Some(Policy::Sync(policy)) => {
                catch_unwind(AssertUnwindSafe(|| policy(tool, args, ctx)))
                    .map_err(|payload| hook_panicked(tool.name(), "policy", payload))?
            }
            _ => Decision::Allow,
        };
        Ok(own.and(registry))
    }

    /// Applies `decision` to the call: a denial or an unmatched answer fails it, an `Ask`
    /// parks it with a bound request, and an accepted approval is taken out of the context so
    /// the handler never sees it.
    pub(super) fn settle(
        &self,
        tool: &Tool,
        args: &Value,
        ctx: &mut ToolContext,
        decision: Decision,
    ) -> Result<(), ToolResult> {
        if let Decision::Deny(why) = decision {
            return Err(denied(tool.name(), &why));
        }
        let asks = matches!(decision, Decision::Ask(_));
        // The answer is the policy step's to use: the handler never sees it.
        if let Some(answer) = ctx.answer.take_if(|a| asks || is_approval_id(&a.id)) {
            let digest = self.digest(tool, args, ctx);
            check_approval(self.key(), &answer, &digest)
                .map_err(|why| denied(tool.name(), &format!("approval not granted: {why}")))?;
            if !answer.ok {
                let reason = answer.reason.as_deref().unwrap_or("no reason given");
                return Err(denied(tool.name(), &format!("approval was declined: {reason}")));
            }
            return Ok(());
        }
        match decision {
            Decision::Ask(request) => Err(ToolResult::pending(self.bind(tool, args, ctx, request))),
            _ => Ok(()),
        }
    }

    fn key(&self) -> &ApprovalKey {
        self.key.as_ref().unwrap_or_else(|| ApprovalKey::process())
    }

    fn digest(&self, tool: &Tool, args: &Value, ctx: &ToolContext) -> String {
        call_digest(tool.name(), ctx.call_id.as_deref().unwrap_or_default(), args)
    }

    /// `request`, with the digest of this call and an id keyed to it.
    fn bind(&self, tool: &Tool, args: &Value, ctx: &ToolContext, mut request: Request) -> Request {
        let digest = self.digest(tool, args, ctx);
        request.id = approval_id(self.key(), &digest);
        request.digest = Some(digest);
        request
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
