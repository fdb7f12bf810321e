//! [`Invocation`]: one call through a registry, and the future of its [`Receipt`].

use std::fmt;
use std::future::{Future, IntoFuture};
use std::mem;
use std::panic::{AssertUnwindSafe, catch_unwind};
use std::pin::Pin;
use std::sync::Arc;
use std::task::{Context, Poll, ready};
use std::time::{Instant, SystemTime};

use serde_json::Value;

use super::{Receipt, ReceiptHook, Registry};
use crate::clock;
use crate::execute::{ExecuteFuture, Options, RulingSlot, call_options};
use crate::record::{CallId, FailureKind, InvocationId, Principal, ToolResult};
use crate::schema::HeldValue;
use crate::tool::Tool;

/// The text of the receipt of a call whose future was dropped before it completed.
pub const DROPPED_CALL_TEXT: &str = "the caller dropped the call before it completed";

/// A prepared call through a [`Registry`]; made by [`Registry::invoke`], run by `.await`.
#[must_use = "an invocation does nothing until it is awaited"]
pub struct Invocation {
    on_receipt: Option<ReceiptHook>,
    /// The tool, or the name that was called and why the call fails before it starts.
    target: Result<Tool, Box<(Arc<str>, ToolResult)>>,
    input: HeldValue,
    options: Options,
}

impl Invocation {
    pub(super) fn new(registry: &Registry, name: &str, input: Value) -> Self {
        Self::with_options(registry, name, input, registry.options())
    }

    /// A call with `options`, which carry the registry's settings already: a dispatch's.
    pub(super) fn with_options(
        registry: &Registry,
        name: &str,
        input: Value,
        options: Options,
    ) -> Self {
        let target = match registry.lookup(name) {
            Ok(tool) => Ok(tool.clone()),
            Err(failure) => Err(Box::new((Arc::from(super::suggest::shown(name)), failure))),
        };
        let on_receipt = registry.on_receipt().cloned();
        Self { on_receipt, target, input: HeldValue::new(input), options }
    }

    /// Hands the call an answer shared with others holding it.
    pub(super) fn shared_answer(mut self, answer: Arc<crate::Answer>) -> Self {
        self.options.answer = Some(answer);
        self
    }

    /// Fails the call before it starts, because the model's arguments could not be read.
    pub(super) fn reject_arguments(mut self, why: &str) -> Self {
        if let Ok(tool) = &self.target {
            let text = format!("invalid arguments for {:?}: {why}", tool.name());
            let failure = ToolResult::failed(FailureKind::InvalidInput, text);
            self.target = Err(Box::new((tool.shared_name(), failure)));
        }
        self
    }
}

call_options!(Invocation);

impl IntoFuture for Invocation {
    type Output = Receipt;
    type IntoFuture = InvokeFuture;

    fn into_future(self) -> InvokeFuture {
        let Invocation { on_receipt, target, input, mut options } = self;
        let call_id = options.call_id.clone();
        let principal = options.principal.clone();
        let mut ruling = None;
        let (tool, body) = match target {
            Ok(tool) => {
                let name = tool.shared_name();
                if options.policy.is_some() || options.answer.is_some() || tool.has_approval_rule()
                {
                    let slot = RulingSlot::default();
                    options.ruling = Some(Arc::clone(&slot));
                    ruling = Some(slot);
                }
                (name, Body::Known(ExecuteFuture::new(tool, input.take(), options)))
            }
            Err(failed) => {
                drop(input);
                let (name, failure) = *failed;
                (name, Body::Failed(Box::new(failure)))
            }
        };
        let who = Box::new(Who { principal, ruling });
        let who = (who.principal.is_some() || who.ruling.is_some()).then_some(who);
        InvokeFuture { tool: Some(tool), call_id, on_receipt, started: None, body, who }
    }
}

/// The future of one invocation's [`Receipt`]. It never panics and never errs.
///
/// # Cancel safety
///
/// Dropping it before it completes stops the call: the handler's future is dropped, so it
/// stops at its next `.await`, and the handler's signal fires. The registry's
/// [`on_receipt`](crate::RegistryBuilder::on_receipt) hook still sees a receipt, an
/// [`Aborted`](FailureKind::Aborted) failure saying [`DROPPED_CALL_TEXT`].
#[must_use = "futures do nothing unless polled"]
pub struct InvokeFuture {
    /// The tool's name, until the receipt takes it (moved, not copied: the receipt is made
    /// once, when the call ends; a future misused by polling it again gets an empty name).
    tool: Option<Arc<str>>,
    call_id: Option<CallId>,
    on_receipt: Option<ReceiptHook>,
    /// When it was first polled, and its invocation id.
    started: Option<Started>,
    body: Body,
    /// Who called, and the policy step's record, for the receipt; boxed, and absent for a
    /// call with neither, so such a call's future stays small.
    who: Option<Box<Who>>,
}

/// The parts of a receipt that come from the host and the policy step.
struct Who {
    principal: Option<Principal>,
    ruling: Option<RulingSlot>,
}

/// When a call started, on both clocks, and the invocation id made from that instant: no
/// clock read of its own.
#[derive(Clone, Copy)]
struct Started {
    at: Instant,
    wall: SystemTime,
    id: InvocationId,
}

// The running call is the common case and is kept inline: boxing it would cost every call
// an allocation, to save room only in calls that failed before they started.
#[allow(
    clippy::large_enum_variant,
    reason = "the common case stays unboxed; whether the lint fires depends on the features \
              the dependencies are built with, so an `expect` would fail in some builds"
)]
enum Body {
    Known(ExecuteFuture),
    /// Failed before it started: an unknown tool, or arguments that could not be read.
    Failed(Box<ToolResult>),
    Done,
}

/// A call's identity, to write its receipt when its future was lost.
pub(super) struct Label {
    tool: Arc<str>,
    call_id: Option<CallId>,
    invocation_id: InvocationId,
    on_receipt: Option<ReceiptHook>,
}

impl Label {
    /// The label of a call of `tool` through `registry`, with a fresh invocation id.
    pub(super) fn new(registry: &Registry, tool: &str, call_id: &CallId) -> Self {
        let tool = match registry.get(tool) {
            Some(found) => found.shared_name(),
            None => Arc::from(super::suggest::shown(tool)),
        };
        let on_receipt = registry.on_receipt().cloned();
        let call_id = Some(call_id.clone());
        Label { tool, call_id, invocation_id: InvocationId::new(), on_receipt }
    }

    /// The call's receipt with `result`, reported to the receipt hook like any other.
    pub(super) fn receipt(self, result: ToolResult) -> Receipt {
        let Label { tool, call_id, invocation_id, on_receipt } = self;
        let (started_at, duration) = (SystemTime::now(), Default::default());
        let receipt = Receipt::new(tool, call_id, result)
            .with_invocation_id(invocation_id)
            .with_started_at(started_at)
            .with_duration(duration);
        report(on_receipt.as_ref(), &receipt);
        receipt
    }
}

/// Hands `receipt` to the registry's hook, if any; a panic in the hook is logged.
fn report(hook: Option<&ReceiptHook>, receipt: &Receipt) {
    if hook.is_some_and(|hook| catch_unwind(AssertUnwindSafe(|| hook(receipt))).is_err()) {
        tracing::warn!(tool = &*receipt.tool, "the on_receipt hook panicked");
    }
}

impl InvokeFuture {
    /// Marks the call started at `now` on its first poll, giving it its invocation id.
    fn start(&mut self) -> Started {
        if let Some(started) = self.started {
            return started;
        }
        let at = Instant::now();
        let wall = clock::wall_time(at);
        let started = Started { at, wall, id: InvocationId::at(wall) };
        self.started = Some(started);
        if let Body::Known(call) = &mut self.body {
            call.set_invocation_id(started.id);
        }
        started
    }

    fn receipt(&mut self, started: Started, result: ToolResult) -> Receipt {
        let (principal, policy) = match self.who.take() {
            Some(who) => {
                let policy = who.ruling.and_then(|slot| {
                    slot.lock().unwrap_or_else(std::sync::PoisonError::into_inner).take()
                });
                (who.principal, policy.map(Box::new))
            }
            None => (None, None),
        };
        Receipt {
            invocation_id: started.id,
            tool: self.tool.take().unwrap_or_else(|| Arc::from("")),
            call_id: self.call_id.take(),
            started_at: started.wall,
            duration: started.at.elapsed(),
            result,
            trace: None,
            principal,
            policy,
        }
    }
}

impl Future for InvokeFuture {
    type Output = Receipt;

    fn poll(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<Receipt> {
        let this = self.get_mut();
        let started = this.start();
        let mut report_it = true;
        let (result, trace) = match &mut this.body {
            Body::Known(call) => {
                let result = ready!(Pin::new(&mut *call).poll(cx));
                (result, call.take_link())
            }
            Body::Failed(_) | Body::Done => match mem::replace(&mut this.body, Body::Done) {
                Body::Failed(failure) => {
                    let link = trace_failed(
                        this.tool.as_deref().unwrap_or_default(),
                        started.id,
                        this.call_id.as_deref(),
                        &failure,
                    );
                    (*failure, link.map(Box::new))
                }
                _ => {
                    report_it = false; // the hook saw this call's receipt already
                    let text = "invocation polled after it completed";
                    (ToolResult::failed(FailureKind::Handler, text), None)
                }
            },
        };
        this.body = Body::Done;
        let mut receipt = this.receipt(started, result);
        receipt.trace = trace;
        if report_it {
            report(this.on_receipt.as_ref(), &receipt);
        }
        Poll::Ready(receipt)
    }
}

impl Drop for InvokeFuture {
    fn drop(&mut self) {
        if matches!(self.body, Body::Done) {
            return;
        }
        // Stop the call first, so its handler is gone when the hook hears of it.
        crate::execute::drop_quietly(mem::replace(&mut self.body, Body::Done));
        if self.on_receipt.is_some() {
            // Never polled: it never started, and has no invocation id.
            let started = self.started.unwrap_or_else(|| {
                let at = Instant::now();
                Started { at, wall: clock::wall_time(at), id: InvocationId::default() }
            });
            let receipt =
                self.receipt(started, ToolResult::failed(FailureKind::Aborted, DROPPED_CALL_TEXT));
            report(self.on_receipt.as_ref(), &receipt);
        }
    }
}

/// The one span of an invocation that failed before it started, and its link.
fn trace_failed(
    tool: &str,
    invocation_id: InvocationId,
    call_id: Option<&str>,
    failure: &ToolResult,
) -> Option<crate::telemetry::TraceLink> {
    let span = crate::execute::span::invocation(tool, None, invocation_id, call_id);
    if span.is_disabled() {
        return None;
    }
    let _entered = span.enter();
    let error = crate::execute::span::record_outcome(&span, failure);
    crate::telemetry::tool_duration(tool, error, std::time::Duration::ZERO);
    crate::telemetry::link_of(&span)
}

impl fmt::Debug for Invocation {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let tool = match &self.target {
            Ok(tool) => tool.name(),
            Err(failed) => &failed.0,
        };
        f.debug_struct("Invocation")
            .field("tool", &tool)
            .field("call_id", &self.options.call_id)
            .finish_non_exhaustive()
    }
}

impl fmt::Debug for InvokeFuture {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("InvokeFuture")
            .field("tool", &self.tool)
            .field("call_id", &self.call_id)
            .field("invocation_id", &self.started.map(|s| s.id))
            .finish_non_exhaustive()
    }
}
