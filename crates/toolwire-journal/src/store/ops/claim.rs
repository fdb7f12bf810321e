//! Claiming a call id: the step before a journaled handler runs.

use sqlx::AnyConnection;

use super::{Cx, call_row};
use crate::error::{JournalError, JournalErrorKind};

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

pub(super) async fn claim(
    conn: &mut AnyConnection,
    cx: &Cx<'_>,
    c: &Claim,
) -> Result<Claimed, JournalError> {
    let inserted = sqlx::query(
        "INSERT INTO journal_calls (call_id, tool, digest, arguments, state, attempt, owner, \
         lease_until, started_at, updated_at) VALUES ($1, $2, $3, $4, 'running', 1, $5, $6, $7, $7) \
         ON CONFLICT (call_id) DO NOTHING",
    )
    .bind(&c.call_id)
    .bind(&c.tool)
    .bind(&c.digest)
    .bind(&c.arguments)
    .bind(&c.owner)
    .bind(c.lease_until)
    .bind(c.now)
    .execute(&mut *conn)
    .await
    .map_err(cx.fail("record that a call started"))?;
    if inserted.rows_affected() == 1 {
        return Ok(Claimed::Run { attempt: 1 });
    }
    for _ in 0..RETRIES {
        if let Some(found) = decide(conn, cx, c).await? {
            return Ok(found);
        }
    }
    let text = format!("call {:?} kept changing while it was claimed", c.call_id);
    Err(JournalError::new(JournalErrorKind::Database, text))
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
    Ok(match row.state.as_str() {
        "completed" => Some(Claimed::Replay { receipt: receipt() }),
        "suspended" => Some(Claimed::Suspended { receipt: receipt() }),
        "unknown" => Some(Claimed::Unknown { attempt: row.attempt, started_at: row.started_at }),
        "running" if row.lease_until > c.now => {
            Some(Claimed::Busy { lease_until: row.lease_until })
        }
        "running" if !c.idempotent => {
            let marked = mark_unknown(conn, cx, c, row.attempt).await?;
            marked.then_some(Claimed::Unknown { attempt: row.attempt, started_at: row.started_at })
        }
        "running" | "retry" => {
            let taken = take_over(conn, cx, c, &row.state, row.attempt).await?;
            taken.then_some(Claimed::Run { attempt: row.attempt + 1 })
        }
        other => {
            let text = format!("call {:?} has an unknown state {other:?}", c.call_id);
            return Err(JournalError::new(JournalErrorKind::Corrupt, text));
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
        "UPDATE journal_calls SET state = 'unknown', owner = NULL, updated_at = $1 \
         WHERE call_id = $2 AND state = 'running' AND attempt = $3 AND lease_until <= $1",
    )
    .bind(c.now)
    .bind(&c.call_id)
    .bind(attempt)
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
    state: &str,
    attempt: i64,
) -> Result<bool, JournalError> {
    let done = sqlx::query(
        "UPDATE journal_calls SET state = 'running', attempt = attempt + 1, owner = $1, \
         lease_until = $2, updated_at = $3 \
         WHERE call_id = $4 AND state = $5 AND attempt = $6 AND lease_until <= $3",
    )
    .bind(&c.owner)
    .bind(c.lease_until)
    .bind(c.now)
    .bind(&c.call_id)
    .bind(state)
    .bind(attempt)
    .execute(&mut *conn)
    .await
    .map_err(cx.fail("take over a call"))?;
    Ok(done.rows_affected() == 1)
}

/// Extends a running call's lease; false if the call is no longer this attempt's.
pub(super) async fn renew(
    conn: &mut AnyConnection,
    cx: &Cx<'_>,
    call_id: &str,
    attempt: i64,
    until: i64,
) -> Result<bool, JournalError> {
    let done = sqlx::query(
        "UPDATE journal_calls SET lease_until = $1 WHERE call_id = $2 AND attempt = $3 AND state = 'running'",
    )
    .bind(until)
    .bind(call_id)
    .bind(attempt)
    .execute(&mut *conn)
    .await
    .map_err(cx.fail("renew a call's lease"))?;
    Ok(done.rows_affected() == 1)
}
