//! What the journal holds of one call id, and the host's resolution of an unknown outcome.

use std::time::SystemTime;

use toolwire::{Receipt, ToolCall, ToolResult};

use super::Journal;
use super::call::{own_receipt, read_receipt};
use crate::error::{JournalError, JournalErrorKind};
use crate::store::ops::{AuditRow, Resolve};
use crate::store::status::CallStatus;
use crate::store::{CallRow, now_millis, reads, time_of};

/// Where a call id stands.
#[non_exhaustive]
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum CallState {
    /// A process runs it now, under a lease.
    Running,
    /// It finished; its receipt is kept.
    Completed,
    /// It waits on a request.
    Suspended,
    /// It started and never finished, and its tool is not idempotent: the host must
    /// [`resolve`](Journal::resolve) it.
    UnknownOutcome,
    /// The host resolved it as never having run: the next delivery runs it.
    Retry,
}

/// What the journal holds of one call id.
#[non_exhaustive]
#[derive(Debug, Clone, PartialEq)]
pub struct CallRecord {
    /// The call: its id, tool and arguments.
    pub call: ToolCall,
    /// Where it stands.
    pub state: CallState,
    /// How many times it was started.
    pub attempts: u64,
    /// When it was first started.
    pub started_at: SystemTime,
    /// Its receipt, once completed (or its pending receipt, while suspended).
    pub receipt: Option<Receipt>,
}

/// The host's verdict on a call of unknown outcome.
#[derive(Debug, Clone, PartialEq)]
pub enum Resolution {
    /// It took effect, with this result: later deliveries replay it.
    TookEffect(ToolResult),
    /// It did not take effect: the next delivery of its call id runs it.
    DidNotRun,
}

impl Journal {
    /// What the journal holds of `call_id`, if anything.
    ///
    /// # Errors
    ///
    /// A database error, or a stored record that does not decode.
    ///
    /// # Cancel safety
    ///
    /// Safe: it only reads, and dropping it changes nothing.
    pub async fn record(&self, call_id: &str) -> Result<Option<CallRecord>, JournalError> {
        let row = reads::call(self.engine.reader(), self.engine.place(), call_id).await?;
        row.map(call_record).transpose()
    }

    /// The calls of unknown outcome, oldest first: each waits for the host's
    /// [`resolve`](Self::resolve), and the journal keeps it until then.
    ///
    /// # Errors
    ///
    /// A database error, or a stored record that does not decode.
    ///
    /// # Cancel safety
    ///
    /// Safe: it only reads, and dropping it changes nothing.
    pub async fn unknown_outcomes(&self) -> Result<Vec<CallRecord>, JournalError> {
        let (reader, place) = (self.engine.reader(), self.engine.place());
        let rows = reads::calls_in(reader, place, CallStatus::Unknown).await?;
        rows.into_iter().map(call_record).collect()
    }

    /// Resolves the call of unknown outcome `call_id`: it took effect (its result is recorded,
    /// and appended to the audit log), or it did not (it runs on its next delivery).
    ///
    /// # Errors
    ///
    /// [`NotUnknown`](JournalErrorKind::NotUnknown) when the call is not of unknown outcome;
    /// a database error.
    ///
    /// # Cancel safety
    ///
    /// A write: dropping the future does not undo it, and it may still commit: read the state
    /// back to learn whether it did.
    pub async fn resolve(&self, call_id: &str, resolution: Resolution) -> Result<(), JournalError> {
        let completed = match resolution {
            Resolution::TookEffect(result) => {
                let tool =
                    self.record(call_id).await?.map(|r| r.call.tool).unwrap_or_else(|| "".into());
                let receipt = own_receipt(&tool, &call_id.into(), SystemTime::now(), result);
                Some(AuditRow::of(&receipt)?)
            }
            Resolution::DidNotRun => None,
        };
        let resolve = Resolve { call_id: call_id.to_owned(), completed, now: now_millis() };
        if self.engine.write(resolve).await? {
            return Ok(());
        }
        Err(JournalError::new(
            JournalErrorKind::NotUnknown,
            format!("call {call_id:?} is not of unknown outcome: there is nothing to resolve"),
        ))
    }
}

fn call_record(row: CallRow) -> Result<CallRecord, JournalError> {
    let state = match row.state {
        CallStatus::Running => CallState::Running,
        CallStatus::Completed => CallState::Completed,
        CallStatus::Suspended => CallState::Suspended,
        CallStatus::Unknown => CallState::UnknownOutcome,
        CallStatus::Retry => CallState::Retry,
    };
    let arguments =
        serde_json::from_str(&row.arguments).map_err(|e| JournalError::corrupt("arguments", e))?;
    Ok(CallRecord {
        call: ToolCall::new(row.call_id, row.tool, arguments),
        state,
        attempts: u64::try_from(row.attempt).unwrap_or(0),
        started_at: time_of(row.started_at),
        receipt: row.receipt.as_deref().map(read_receipt).transpose()?,
    })
}
