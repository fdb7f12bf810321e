//! Resuming a pending run with the host's answers.

use futures_util::future::join_all;
use toolwire::{AbortSignal, Answer, Receipt};

use super::call::start_answered;
use super::drive::{self, Progress};
use super::events::{self, AgentEvent};
use super::state::{RunState, is_waiting};
use super::{RunOutcome, Shared};
use crate::{Error, ErrorKind};

/// Claims `run_id` from the agent's store and resumes it with `answers` and the stored
/// ones; lets go of the claim when the resume fails before running anything.
pub(super) async fn resume_stored(
    shared: &Shared,
    run_id: &str,
    answers: Vec<Answer>,
    signal: AbortSignal,
) -> Result<RunOutcome, Error> {
    let Some(store) = &shared.store else {
        return Err(Error::new(
            ErrorKind::Store,
            format!("cannot resume run {run_id:?}: the agent has no run store"),
        ));
    };
    let Some(stored) = store.claim(run_id).await? else {
        return Err(Error::new(
            ErrorKind::Store,
            format!("cannot resume run {run_id:?}: the store does not hold it"),
        ));
    };
    let mut merged = answers;
    for answer in stored.answers {
        if !merged.iter().any(|given| given.id == answer.id) {
            merged.push(answer);
        }
    }
    match resume(shared, stored.state, merged, signal).await {
        Ok(outcome) => Ok(outcome),
        // A `Resume` error comes before any call runs: the run is as it was. After calls
        // ran (a store that failed to forget the run), the claim stays until it lapses, so
        // that nobody runs the answered calls again at once.
        Err(error) if error.kind() == ErrorKind::Resume => {
            if let Err(release) = store.release(run_id).await {
                tracing::warn!(run_id, %release, "cannot let go of the claim on a run");
            }
            Err(error)
        }
        Err(error) => Err(error),
    }
}

/// Re-runs the waiting calls that `answers` answer; continues the loop once no call waits.
pub(super) async fn resume(
    shared: &Shared,
    mut state: RunState,
    answers: Vec<Answer>,
    signal: AbortSignal,
) -> Result<RunOutcome, Error> {
    check(shared, &state)?;
    let Some(mut pending) = state.pending.take() else {
        let message =
            format!("cannot resume run {:?}: no call in it waits for an answer", state.run_id);
        return Err(Error::new(ErrorKind::Resume, message));
    };
    let mut reruns = Vec::new();
    for (position, (call, receipt)) in pending.calls.iter().zip(&pending.receipts).enumerate() {
        let Some(request) = receipt.result.pending_request() else { continue };
        let Some(answer) = answers.iter().find(|answer| answer.id == request.id) else { continue };
        if let Some(sink) = &shared.events {
            sink(&AgentEvent::CallStarted(call));
        }
        reruns.push((position, start_answered(shared, call.clone(), answer.clone(), &signal)));
    }
    if reruns.is_empty() && !answers.is_empty() {
        state.pending = Some(pending);
        let message = format!(
            "cannot resume run {:?}: no answer matches a waiting call's request id",
            state.run_id
        );
        return Err(Error::new(ErrorKind::Resume, message));
    }
    let (positions, runs): (Vec<usize>, Vec<_>) = reruns.into_iter().unzip();
    let mut fresh: Vec<Receipt> = Vec::with_capacity(positions.len());
    for (position, receipt) in positions.into_iter().zip(join_all(runs).await) {
        events::finished(shared.events.as_ref(), &receipt);
        if let Some(slot) = pending.receipts.get_mut(position) {
            *slot = receipt.clone();
        }
        fresh.push(receipt);
    }
    if pending.receipts.iter().any(is_waiting) {
        state.pending = Some(pending);
        return Ok(
            drive::park(shared, Progress { state, receipts: fresh, text: String::new() }).await
        );
    }
    let api = shared.api()?;
    drive::fit(api, &mut pending.receipts);
    let results = api.render_results(&pending.assistant, &pending.receipts);
    state.messages.extend(results);
    drive::keep_images(shared, api, &mut state.messages);
    if let Some(store) = &shared.store {
        store.remove(&state.run_id).await?;
    }
    let mut outcome = drive::drive(shared, state, &signal).await;
    fresh.append(&mut outcome.receipts);
    outcome.receipts = fresh;
    Ok(outcome)
}

/// Checks that `state` was made for this agent's provider and model.
fn check(shared: &Shared, state: &RunState) -> Result<(), Error> {
    shared.api()?;
    let provider = shared.client.provider();
    let model = shared.client.model();
    if state.provider == provider && state.model == model {
        return Ok(());
    }
    let message = format!(
        "cannot resume run {:?}: it was made for {}:{}, and this agent runs {provider}:{model}",
        state.run_id, state.provider, state.model
    );
    Err(Error::new(ErrorKind::Resume, message))
}
