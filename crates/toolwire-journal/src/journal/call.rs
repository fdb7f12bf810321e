//! The steps around a journaled handler: the claim before it, the lease while it runs, the
//! record after it.

use std::sync::Arc;
use std::time::{Duration, SystemTime};

use toolwire::{CallId, FailureKind, InvocationId, Receipt, ToolResult};

use super::Journal;
use crate::error::{JournalError, JournalErrorKind};
use crate::store::ops::{AuditRow, Claim, Claimed, Completion, PendingRow};
use crate::store::{Op, Reply, millis, millis_of, now_millis, reads, shown_time};

impl Journal {
    /// Claims `claim`'s call id.
    pub(super) async fn claim(&self, claim: Claim) -> Result<Claimed, JournalError> {
        match self.store().write(Op::Claim(claim)).await? {
            Reply::Claimed(claimed) => Ok(claimed),
            other => Err(unexpected(&other)),
        }
    }

    /// The stored receipt of `call_id`, if it completed as the call with `digest`; any other
    /// case is the claim's to judge. A completed call never changes, so its receipt is kept
    /// in memory too.
    pub(super) async fn completed(
        &self,
        call_id: &str,
        digest: &str,
    ) -> Result<Option<Receipt>, JournalError> {
        if let Some(hit) = self.inner.replays.get(call_id, digest) {
            return Ok(Some(hit));
        }
        let row = reads::completed(self.store().reader(), self.store().place(), call_id).await?;
        let Some((stored, json)) = row.filter(|(stored, _)| stored == digest) else {
            return Ok(None);
        };
        let receipt = read_receipt(&json)?;
        self.inner.replays.put(call_id, stored, &receipt);
        Ok(Some(receipt))
    }

    /// A claim of `call_id` by this journal, with a fresh lease.
    pub(super) fn new_claim(
        &self,
        call_id: &str,
        tool: &str,
        digest: String,
        arguments: String,
        idempotent: bool,
    ) -> Claim {
        let now = now_millis();
        Claim {
            call_id: call_id.to_owned(),
            tool: tool.to_owned(),
            digest,
            arguments,
            // Unique per claim: a batch of claims tells its winners by owner.
            owner: format!(
                "{}-{}",
                self.inner.owner,
                self.inner.claims.fetch_add(1, std::sync::atomic::Ordering::Relaxed)
            ),
            now,
            lease_until: self.lease_from(now),
            idempotent,
        }
    }

    pub(super) fn lease_from(&self, now: i64) -> i64 {
        now.saturating_add(millis_of(self.inner.options.lease))
    }

    /// Renews the lease of `call_id`'s attempt until the returned guard is dropped.
    pub(super) fn hold_lease(&self, call_id: &str, attempt: i64) -> LeaseGuard {
        let journal = self.clone();
        let call_id = call_id.to_owned();
        let every = self.inner.options.lease / 3;
        let task = tokio::spawn(async move {
            loop {
                tokio::time::sleep(every).await;
                let until = journal.lease_from(now_millis());
                let op = Op::Renew { call_id: call_id.clone(), attempt, until };
                match journal.store().write(op).await {
                    Ok(Reply::Done(true)) => {}
                    Ok(_) => return,
                    Err(error) => {
                        tracing::warn!(call_id, %error, "cannot renew a journaled call's lease")
                    }
                }
            }
        });
        LeaseGuard(task)
    }

    /// Records `receipt` as the outcome of `call_id`'s `attempt`; `resumed` names the request
    /// the run answered.
    pub(super) async fn complete(
        &self,
        call_id: &str,
        digest: &str,
        attempt: i64,
        receipt: Receipt,
        resumed: Option<String>,
    ) -> Result<Receipt, JournalError> {
        let done = match completion(call_id, attempt, &receipt, resumed) {
            Ok(done) => done,
            Err(error) => return Err(error.with_receipt(receipt)),
        };
        let finished = done.pending.is_none();
        match self.store().write(Op::Complete(Box::new(done))).await {
            Ok(Reply::Done(true)) => {
                if finished {
                    self.inner.replays.put(call_id, digest.to_owned(), &receipt);
                }
                Ok(receipt)
            }
            Ok(_) => {
                tracing::warn!(
                    call_id,
                    "a journaled call completed after another runner took it over"
                );
                Ok(receipt)
            }
            Err(error) => Err(error.with_receipt(receipt)),
        }
    }
}

/// Stops renewing a lease when dropped.
#[derive(Debug)]
pub(super) struct LeaseGuard(tokio::task::JoinHandle<()>);

impl Drop for LeaseGuard {
    fn drop(&mut self) {
        self.0.abort();
    }
}

fn completion(
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
    Receipt {
        invocation_id: InvocationId::new(),
        tool: Arc::from(tool),
        call_id: Some(call_id.clone()),
        started_at,
        duration: started_at.elapsed().unwrap_or(Duration::ZERO),
        result,
    }
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

pub(super) fn unexpected(reply: &Reply) -> JournalError {
    JournalError::new(
        JournalErrorKind::Database,
        format!("the journal's store gave an unexpected reply: {reply:?}"),
    )
}

/// Decodes a stored receipt.
pub(super) fn read_receipt(json: &str) -> Result<Receipt, JournalError> {
    serde_json::from_str(json).map_err(|e| JournalError::corrupt("receipt", e))
}
