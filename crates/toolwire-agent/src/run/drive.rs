//! The loop: model → calls → policy and approvals → dispatch → results → model.

use toolwire::provider::{ModelApi, repair};
use toolwire::{AbortSignal, InvocationId, Receipt};
use tracing::Instrument;

use super::catalog::Catalog;
use super::events::AgentEvent;
use super::guard::Guard;
use super::state::{PendingTurn, RunState, is_waiting};
use super::trace;
use super::turn::{Lookup, Starter};
use super::{RunOutcome, Shared, StopReason};
use crate::client::{ModelRequest, ModelTurn};

/// The state a run starts from: a new conversation, or `history` continued, with the
/// user's `prompt` added.
pub(super) fn open(shared: &Shared, history: Option<RunState>, prompt: &str) -> RunState {
    let mut state = history.unwrap_or_else(|| RunState {
        run_id: InvocationId::new().to_string(),
        provider: shared.client.provider(),
        model: shared.client.model().to_owned(),
        messages: Vec::new(),
        turns: 0,
        prompt_turns: 0,
        found_tools: Vec::new(),
        pending: None,
        meta: serde_json::Value::Null,
    });
    state.prompt_turns = 0;
    // A provider that runs no model gets no message: the run fails at its first turn.
    let Ok(api) = shared.api() else { return state };
    if let Some(mut pending) = state.pending.take() {
        // Calls still waiting answer as they stand, so the conversation stays balanced.
        fit(api, &mut pending.receipts);
        let results = api.render_results(&pending.assistant, &pending.receipts);
        state.messages.extend(results);
        keep_images(shared, api, &mut state.messages);
    }
    state.messages.push(api.user_message(prompt));
    state
}

/// What a run has gathered so far.
pub(super) struct Progress {
    pub(super) state: RunState,
    pub(super) receipts: Vec<Receipt>,
    pub(super) text: String,
}

impl Progress {
    pub(super) fn end(self, stop: StopReason) -> RunOutcome {
        RunOutcome { stop, text: self.text, receipts: self.receipts, state: self.state }
    }
}

/// Runs turns until the model stops, a limit is reached, or calls wait, in the run's
/// `invoke_agent` span.
pub(super) async fn drive(shared: &Shared, state: RunState, signal: &AbortSignal) -> RunOutcome {
    let agent = trace::agent(shared.client.provider(), shared.client.model(), &state.run_id);
    let outcome = turns(shared, state, signal).instrument(agent.span.clone()).await;
    trace::ended(&agent, &outcome.stop);
    outcome
}

async fn turns(shared: &Shared, state: RunState, signal: &AbortSignal) -> RunOutcome {
    let provider = shared.client.provider();
    let mut run = Progress { state, receipts: Vec::new(), text: String::new() };
    let api = match shared.api() {
        Ok(api) => api,
        Err(error) => return run.end(StopReason::ModelError(error)),
    };
    let catalog = match Catalog::new(&shared.registry) {
        Ok(catalog) => catalog,
        Err(error) => return run.end(StopReason::ModelError(error)),
    };
    let loaded = shared.app.definitions(&shared.registry, provider);
    let mut tools = catalog.tools(shared, api, &loaded, &run.state.found_tools);
    let mut guard = Guard::new(shared.repetition_limit);
    loop {
        if signal.is_aborted() {
            return run.end(StopReason::Aborted);
        }
        // The limit counts the turns since the prompt, across resumptions.
        if run.state.prompt_turns >= shared.max_turns {
            let taken = run.state.prompt_turns;
            return run.end(StopReason::TurnLimit(taken));
        }
        run.state.turns += 1;
        run.state.prompt_turns += 1;
        if let Some(sink) = &shared.events {
            sink(&AgentEvent::TurnStarted { turn: run.state.turns });
        }
        let mut found = Vec::new();
        let lookup =
            Lookup { catalog: &catalog, api, known: &run.state.found_tools, found: &mut found };
        let mut starter = Starter::new(shared, signal, &mut guard, lookup);
        let request = ModelRequest {
            system: shared.system.as_deref(),
            messages: &run.state.messages,
            tools: &tools,
            signal,
        };
        let chat = trace::chat(provider, shared.client.model());
        let completed =
            shared.client.complete(request, &mut starter).instrument(chat.span.clone()).await;
        trace::answered(&chat, &completed);
        drop(chat);
        let turn = match completed {
            Ok(turn) => turn,
            Err(error) => {
                let (text, calls, receipts) = starter.abandon().await;
                run.state.found_tools.append(&mut found);
                if !calls.is_empty() {
                    // Balance the cut turn: the calls that were reported get results.
                    let assistant = api.render_turn(&text, &calls);
                    append(&mut run, api, assistant, repair(&calls, receipts));
                }
                run.text = text;
                let aborted = error.is_aborted() || signal.is_aborted();
                return run.end(if aborted {
                    StopReason::Aborted
                } else {
                    StopReason::ModelError(error)
                });
            }
        };
        let ModelTurn { assistant, calls, text, finish, .. } = turn;
        run.text = text;
        if calls.is_empty() {
            // Stops any call a confused stream reported but the reply does not hold.
            starter.finish(&[]).await;
            run.state.messages.extend(assistant);
            return run.end(StopReason::Finished(finish));
        }
        let receipts = repair(&calls, starter.finish(&calls).await);
        if !found.is_empty() {
            // Appended, so that the tools sent before stay as they were, in order.
            run.state.found_tools.append(&mut found);
            tools = catalog.tools(shared, api, &loaded, &run.state.found_tools);
        }
        if receipts.iter().any(is_waiting) {
            run.state.messages.extend(assistant.iter().cloned());
            run.receipts.extend(receipts.iter().cloned());
            run.state.pending = Some(PendingTurn { assistant, calls, receipts });
            return park(shared, run).await;
        }
        append(&mut run, api, assistant, receipts);
        keep_images(shared, api, &mut run.state.messages);
        if let Some((tool, times)) = guard.tripped.take() {
            return run.end(StopReason::Repetition { tool, times });
        }
    }
}

/// Appends a turn and its results, each part the provider would refuse replaced by its
/// stand-in first.
fn append(
    run: &mut Progress,
    api: ModelApi,
    assistant: Vec<serde_json::Value>,
    mut receipts: Vec<Receipt>,
) {
    fit(api, &mut receipts);
    let results = api.render_results(&assistant, &receipts);
    run.state.messages.extend(assistant);
    run.state.messages.extend(results);
    run.receipts.extend(receipts);
}

/// Puts a stand-in in place of each part of `receipts` the provider would refuse, so that it
/// never enters the history (where it would fail every later turn) and the receipt says so.
pub(super) fn fit(api: ModelApi, receipts: &mut [Receipt]) {
    for receipt in receipts {
        api.fit(&mut receipt.result);
    }
}

/// Keeps the newest images of the history in full, as the agent's
/// [`keep_images`](crate::AgentBuilder::keep_images) says.
pub(super) fn keep_images(shared: &Shared, api: ModelApi, messages: &mut [serde_json::Value]) {
    if let Some(keep) = shared.keep_images {
        api.keep_newest_images(messages, keep);
    }
}

/// Ends a run whose calls wait, saving it in the agent's store.
pub(super) async fn park(shared: &Shared, run: Progress) -> RunOutcome {
    if let Some(store) = &shared.store
        && let Err(error) = store.save(&run.state).await
    {
        return run.end(StopReason::StoreFailed(error));
    }
    run.end(StopReason::Pending)
}
