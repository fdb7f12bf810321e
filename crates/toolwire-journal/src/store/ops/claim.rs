//! Claiming a call id: the step before a journaled handler runs.

use sqlx::AnyConnection;

#[cfg(feature = "sqlite")]
use super::Grouped;
use super::{Cx, Write, call_row};
use crate::error::{JournalError, JournalErrorKind};
use crate::store::status::CallStatus;

/// A call that wants to run.
#[derive(Debug, Clone)]
pub(crate) struct Claim {
    pub(crate) call_id: String,
    pub(crate) tool: String,
    /// The digest of the tool, call id and canonical arguments.
    pub(crate) digest: String,
    pub(crate) arguments: String,
    /// Who runs it: the journal instance.
    pub(crate) owner: String,
    pub(crate) now: i64,
    pub(crate) lease_until: i64,
    /// Whether a call whose runner died may run again.
    pub(crate) idempotent: bool,
}

/// What the journal says of a claim.
#[derive(Debug)]
pub(crate) enum Claimed {
    /// Run it: the call is now this claim's, as attempt `attempt`.
    Run { attempt: i64 },
    /// It completed before: here is its receipt, as JSON.
    Replay { receipt: String },
    /// It waits on a request: here is its pending receipt, as JSON.
    Suspended { receipt: String },
    /// The id was first used for a call with other arguments, or of another tool.
    Mismatch { tool: String },
    /// Another runner holds a live lease on it until this time.
    Busy { lease_until: i64 },
    /// It started and never finished, and the tool is not idempotent.
    Unknown { attempt: i64, started_at: i64 },
}

/// How often a claim reads a row again that changed under it before giving up.
const RETRIES: usize = 16;

impl Write for Claim {
    type Output = Claimed;

    async fn run(&self, conn: &mut AnyConnection, cx: &Cx<'_>) -> Result<Claimed, JournalError> {
        let inserted = sqlx::query(
            "INSERT INTO journal_calls (call_id, tool, digest, arguments, state, attempt, owner, \
             lease_until, started_at, updated_at) VALUES ($1, $2, $3, $4, $8, 1, $5, $6, $7, $7) \
             ON CONFLICT (call_id) DO NOTHING",
        )
        .bind(&self.call_id)
        .bind(&self.tool)
        .bind(&self.digest)
        .bind(&self.arguments)
        .bind(&self.owner)
        .bind(self.lease_until)
        .bind(self.now)
        .bind(CallStatus::Running)
        .execute(&mut *conn)
        .await
        .map_err(cx.fail("record that a call started"))?;
        if inserted.rows_affected() == 1 {
            return Ok(Claimed::Run { attempt: 1 });
        }
        for _ in 0..RETRIES {
            if let Some(found) = decide(conn, cx, self).await? {
                return Ok(found);
            }
        }
        let text = format!("call {:?} kept changing while it was claimed", self.call_id);
        Err(JournalError::new(JournalErrorKind::Database, text))
    }

    #[cfg(feature = "sqlite")]
    fn grouped(&self) -> Option<Grouped<'_>> {
        Some(Grouped::Claim(self))
    }

    /// A claim that a shared insert won runs as the first attempt; one that lost reads the
    /// row on its own.
    #[cfg(feature = "sqlite")]
    fn grouped_output(won: bool) -> Option<Claimed> {
        won.then_some(Claimed::Run { attempt: 1 })
    }
}

/// What the existing row says, or `None` when it changed under a conditional update.
async fn decide(
    conn: &mut AnyConnection,
    cx: &Cx<'_>,
    c: &Claim,
) -> Result<Option<Claimed>, JournalError> {
    let Some(row) = call_row(conn, cx, &c.call_id).await? else {
        let text = format!("call {:?} vanished from the journal", c.call_id);
        return Err(JournalError::new(JournalErrorKind::Corrupt, text));
    };
    if row.digest != c.digest {
        return Ok(Some(Claimed::Mismatch { tool: row.tool }));
    }
    let receipt = || row.receipt.clone().unwrap_or_default();
    Ok(match row.state {
        CallStatus::Completed => Some(Claimed::Replay { receipt: receipt() }),
        CallStatus::Suspended => Some(Claimed::Suspended { receipt: receipt() }),
        CallStatus::Unknown => {
            Some(Claimed::Unknown { attempt: row.attempt, started_at: row.started_at })
        }
        CallStatus::Running if row.lease_until > c.now => {
            Some(Claimed::Busy { lease_until: row.lease_until })
        }
        CallStatus::Running if !c.idempotent => {
            let marked = mark_unknown(conn, cx, c, row.attempt).await?;
            marked.then_some(Claimed::Unknown { attempt: row.attempt, started_at: row.started_at })
        }
        CallStatus::Running | CallStatus::Retry => {
            let taken = take_over(conn, cx, c, row.state, row.attempt).await?;
            taken.then_some(Claimed::Run { attempt: row.attempt + 1 })
        }
    })
}

/// Marks a call whose runner's lease lapsed as of unknown outcome; false if it changed.
async fn mark_unknown(
    conn: &mut AnyConnection,
    cx: &Cx<'_>,
    c: &Claim,
    attempt: i64,
) -> Result<bool, JournalError> {
    let done = sqlx::query(
        "UPDATE journal_calls SET state = $4, owner = NULL, updated_at = $1 \
         WHERE call_id = $2 AND state = $5 AND attempt = $3 AND lease_until <= $1",
    )
    .bind(c.now)
    .bind(&c.call_id)
    .bind(attempt)
    .bind(CallStatus::Unknown)
    .bind(CallStatus::Running)
    .execute(&mut *conn)
    .await
    .map_err(cx.fail("mark a call of unknown outcome"))?;
    Ok(done.rows_affected() == 1)
}

/// Takes a call over for a new attempt: one whose runner died (an idempotent tool), or one
/// the host said never ran; false if it changed.
async fn take_over(
    conn: &mut AnyConnection,
    cx: &Cx<'_>,
    c: &Claim,
    state: CallStatus,
    attempt: i64,
) -> Result<bool, JournalError> {
    let done = sqlx::query(
        "UPDATE journal_calls SET state = $7, attempt = attempt + 1, owner = $1, \
         lease_until = $2, updated_at = $3 \
         WHERE call_id = $4 AND state = $5 AND attempt = $6 AND lease_until <= $3",
    )
    .bind(&c.owner)
    .bind(c.lease_until)
    .bind(c.now)
    .bind(&c.call_id)
    .bind(state)
    .bind(attempt)
    .bind(CallStatus::Running)
    .execute(&mut *conn)
    .await
    .map_err(cx.fail("take over a call"))?;
    Ok(done.rows_affected() == 1)
}

/// An extension of a running call's lease, until `until`.
#[derive(Debug, Clone)]
pub(crate) struct Renew {
    pub(crate) call_id: String,
    pub(crate) attempt: i64,
    pub(crate) until: i64,
}

impl Write for Renew {
    /// False if the call is no longer this attempt's.
    type Output = bool;

    async fn run(&self, conn: &mut AnyConnection, cx: &Cx<'_>) -> Result<bool, JournalError> {
        let done = sqlx::query(
            "UPDATE journal_calls SET lease_until = $1 WHERE call_id = $2 AND attempt = $3 AND state = $4",
        )
        .bind(self.until)
        .bind(&self.call_id)
        .bind(self.attempt)
        .bind(CallStatus::Running)
        .execute(&mut *conn)
        .await
        .map_err(cx.fail("renew a call's lease"))?;
        Ok(done.rows_affected() == 1)
    }
}
