//! What the journal writes of a call: the record of its outcome, and the results of the calls
//! it refuses to run itself (an unknown outcome, a reused call id, a call in progress
//! elsewhere).

use std::time::{Duration, SystemTime};

use toolwire::{CallId, FailureKind, Receipt, ToolResult};

use crate::error::JournalError;
use crate::store::ops::{AuditRow, Completion, PendingRow};
use crate::store::{millis, now_millis, shown_time};

/// The record of `receipt` as the outcome of `call_id`'s `attempt`, with the request it now
/// waits on, if its result is pending; `resumed` names the request the run answered.
pub(super) fn completion(
    call_id: &str,
    attempt: i64,
    receipt: &Receipt,
    resumed: Option<String>,
) -> Result<Completion, JournalError> {
    let now = now_millis();
    let pending = match receipt.result.pending_request() {
        Some(request) => Some(PendingRow {
            request_id: request.id.clone(),
            kind: request.kind.clone(),
            request: serde_json::to_string(request)
                .map_err(|e| JournalError::corrupt("request", e))?,
            expires_at: request.expires_at.as_deref().map(|at| expiry(at, now)),
        }),
        None => None,
    };
    Ok(Completion {
        call_id: call_id.to_owned(),
        attempt,
        audit: AuditRow::of(receipt)?,
        pending,
        resumed,
        now,
    })
}

/// When a request lapses; one whose time does not parse lapses at once (fails closed).
pub(super) fn expiry(at: &str, now: i64) -> i64 {
    match humantime::parse_rfc3339_weak(at) {
        Ok(time) => millis(time),
        Err(error) => {
            tracing::warn!(expires_at = at, %error, "a request's expiry does not parse; it lapses now");
            now
        }
    }
}

/// A receipt the journal writes itself, for a call it did not run.
pub(super) fn own_receipt(
    tool: &str,
    call_id: &CallId,
    started_at: SystemTime,
    result: ToolResult,
) -> Receipt {
    Receipt::new(tool, Some(call_id.clone()), result)
        .with_started_at(started_at)
        .with_duration(started_at.elapsed().unwrap_or(Duration::ZERO))
}

/// The result of a call of unknown outcome.
pub(super) fn unknown_outcome(
    tool: &str,
    call_id: &str,
    attempt: i64,
    started_at: i64,
) -> ToolResult {
    let since = shown_time(started_at);
    let text = format!(
        "the outcome of call {call_id:?} of {tool:?} is unknown: attempt {attempt} started at {since} \
         and never finished (its process died), and {tool:?} is not idempotent, so it will not run \
         again until the host resolves it"
    );
    ToolResult::failed(FailureKind::UnknownOutcome, text)
}

/// The result of a call id reused for another call.
pub(super) fn mismatch(tool: &str, call_id: &str, first_tool: &str) -> ToolResult {
    let text = if first_tool == tool {
        format!(
            "call id {call_id:?} was already used for a call of {tool:?} with other arguments \
             (their canonical JSON digests differ); the journal refuses to run it"
        )
    } else {
        format!(
            "call id {call_id:?} was already used for a call of {first_tool:?}, not {tool:?}; the journal refuses to run it"
        )
    };
    ToolResult::failed(FailureKind::Denied, text)
}

/// The result of a call that runs elsewhere past this call's deadline.
pub(super) fn in_progress(tool: &str, call_id: &str) -> ToolResult {
    let text = format!(
        "call {call_id:?} of {tool:?} is in progress in another process; it did not finish before \
         this call's deadline, and it will not run twice"
    );
    ToolResult::failed(FailureKind::InProgress, text)
}

/// Decodes a stored receipt.
pub(super) fn read_receipt(json: &str) -> Result<Receipt, JournalError> {
    serde_json::from_str(json).map_err(|e| JournalError::corrupt("receipt", e))
}
