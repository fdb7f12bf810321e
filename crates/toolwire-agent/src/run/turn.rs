//! One turn's calls: started the moment the model finishes writing each (streaming
//! dispatch), or all at once when the turn is over; their receipts in call order.

use std::mem;

use futures_util::future::join_all;
use tokio::task::JoinHandle;
use toolwire::{AbortSignal, Receipt, ToolCall};
use tracing::Instrument;

use super::Shared;
use super::call::{Whose, joined, lost, prepare, start};
use super::catalog::Catalog;
use super::events::{self, AgentEvent};
use super::guard::{Guard, refusal};
use crate::client::TurnSink;

/// Where one call of the turn is.
enum Slot {
    /// Started on its own task.
    Running(ToolCall, JoinHandle<Receipt>),
    /// Complete, waiting for the end of the turn.
    Held(ToolCall),
    /// Answered by the agent: refused (by the repetition guard, the call cap or the
    /// catalog's gate), or a search of the catalog.
    Refused(ToolCall, Box<Receipt>),
}

impl Slot {
    fn call(&self) -> &ToolCall {
        match self {
            Slot::Running(call, _) | Slot::Held(call) | Slot::Refused(call, _) => call,
        }
    }
}

/// What a turn knows of the deferred catalog: the tools found before it, and where the
/// tools its searches find go.
pub(crate) struct Lookup<'a> {
    pub(crate) catalog: &'a Catalog,
    pub(crate) api: toolwire::provider::ModelApi,
    pub(crate) known: &'a [String],
    pub(crate) found: &'a mut Vec<String>,
}

/// Hears a turn as it streams, and starts its calls.
pub(crate) struct Starter<'a> {
    shared: &'a Shared,
    signal: &'a AbortSignal,
    guard: &'a mut Guard,
    lookup: Lookup<'a>,
    slots: Vec<Slot>,
    /// The text so far.
    pub(crate) text: String,
}

impl<'a> Starter<'a> {
    pub(crate) fn new(
        shared: &'a Shared,
        signal: &'a AbortSignal,
        guard: &'a mut Guard,
        lookup: Lookup<'a>,
    ) -> Self {
        Self { shared, signal, guard, lookup, slots: Vec::new(), text: String::new() }
    }

    /// The slot of a call that is complete: refused, started, or held for the end.
    /// `position` is the call's place in the turn, from 0.
    fn slot(&mut self, call: ToolCall, position: usize) -> Slot {
        if position >= usize::try_from(self.shared.max_calls).unwrap_or(usize::MAX) {
            let text = format!(
                "not run: the model made more than {} calls in one turn, the agent's limit",
                self.shared.max_calls
            );
            let receipt = refusal(&call, text);
            return Slot::Refused(call, Box::new(receipt));
        }
        if let Some(refusal) = self.guard.admit(&call) {
            return Slot::Refused(call, Box::new(refusal));
        }
        // A search, or a deferred tool called before any search found it; a tool a search
        // of this same turn finds counts as a guess, since the model had not seen it.
        let Lookup { catalog, api, known, found } = &mut self.lookup;
        if let Some(answer) = catalog.answer(self.shared, *api, &call, known, found) {
            return Slot::Refused(call, Box::new(answer));
        }
        if !self.shared.streaming {
            return Slot::Held(call);
        }
        if let Some(sink) = &self.shared.events {
            sink(&AgentEvent::CallStarted(&call));
        }
        let receipt = start(self.shared, call.clone(), self.signal);
        let sink = self.shared.events.clone();
        let running = async move {
            let receipt = receipt.await;
            events::finished(sink.as_ref(), &receipt);
            receipt
        };
        // The call's span is a child of the model request that made it, when traced.
        let span = tracing::Span::current();
        let handle = if span.is_disabled() {
            tokio::spawn(running)
        } else {
            tokio::spawn(running.instrument(span))
        };
        Slot::Running(call, handle)
    }

    /// The receipts of `calls`, the turn's calls as its reply gave them, in order: the calls
    /// started while it streamed are matched by position, id and name, and the others start
    /// now.
    pub(crate) async fn finish(mut self, calls: &[ToolCall]) -> Vec<Receipt> {
        let mut slots = mem::take(&mut self.slots).into_iter();
        let mut matched = Vec::with_capacity(calls.len());
        for (position, call) in calls.iter().enumerate() {
            let slot = match slots.next() {
                Some(slot) if same(slot.call(), call) => slot,
                other => {
                    if let Some(Slot::Running(_, handle)) = other {
                        handle.abort();
                    }
                    self.slot(call.clone(), position)
                }
            };
            matched.push(slot);
        }
        slots.for_each(|slot| {
            if let Slot::Running(_, handle) = slot {
                handle.abort()
            }
        });
        self.settle(matched).await
    }

    /// The calls reported so far and their receipts, for a turn whose reply never
    /// completed; calls held for the end never run.
    pub(crate) async fn abandon(mut self) -> (String, Vec<ToolCall>, Vec<Receipt>) {
        let slots = mem::take(&mut self.slots);
        let calls: Vec<ToolCall> = slots.iter().map(|slot| slot.call().clone()).collect();
        let started = slots.into_iter().filter(|slot| !matches!(slot, Slot::Held(_))).collect();
        let receipts = self.settle(started).await;
        (self.text, calls, receipts)
    }

    /// Waits for the running calls, runs the held ones as one dispatch, in order.
    async fn settle(&self, slots: Vec<Slot>) -> Vec<Receipt> {
        // Per slot: whose call it is, and its receipt if it is known already.
        let mut out = Vec::with_capacity(slots.len());
        let mut waits = Vec::with_capacity(slots.len());
        let mut held = Vec::new();
        for slot in slots {
            let whose = Whose::of(slot.call());
            let (refused, wait) = match slot {
                Slot::Running(_, handle) => (None, Some(handle)),
                Slot::Held(call) => {
                    held.push(call);
                    (None, None)
                }
                Slot::Refused(_, receipt) => {
                    events::finished(self.shared.events.as_ref(), &receipt);
                    (Some(*receipt), None)
                }
            };
            out.push((whose, refused));
            waits.push(wait);
        }
        let (mut batch, joined) =
            tokio::join!(self.dispatch(held), join_all(waits.into_iter().map(joined)));
        batch.reverse();
        out.into_iter()
            .zip(joined)
            .map(|((whose, refused), joined)| {
                let receipt = refused.or(joined).or_else(|| batch.pop());
                whose.own(receipt.unwrap_or_else(lost))
            })
            .collect()
    }

    /// Runs held calls as one dispatch, telling the event sink about each.
    async fn dispatch(&self, calls: Vec<ToolCall>) -> Vec<Receipt> {
        if calls.is_empty() {
            return Vec::new();
        }
        let sink = self.shared.events.clone();
        if let Some(sink) = &sink {
            calls.iter().for_each(|call| sink(&AgentEvent::CallStarted(call)));
        }
        let receipts =
            prepare(self.shared, self.shared.registry.dispatch(calls), self.signal).await;
        receipts.iter().for_each(|receipt| events::finished(sink.as_ref(), receipt));
        receipts
    }
}

impl TurnSink for Starter<'_> {
    fn text(&mut self, delta: &str) {
        self.text.push_str(delta);
        if let Some(sink) = &self.shared.events {
            sink(&AgentEvent::TextDelta(delta));
        }
    }

    fn call(&mut self, call: &ToolCall) {
        let slot = self.slot(call.clone(), self.slots.len());
        self.slots.push(slot);
    }
}

/// Whether a call started from the stream is the reply's call.
fn same(started: &ToolCall, call: &ToolCall) -> bool {
    started.call_id == call.call_id && started.tool == call.tool
}
