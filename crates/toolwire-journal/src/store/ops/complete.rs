//! Recording a call's receipt: the step after a journaled handler ran.

use sqlx::AnyConnection;

use super::Cx;
use super::audit::{AuditRow, append};
use crate::error::JournalError;

/// A call's outcome, to record.
#[derive(Debug, Clone)]
pub(crate) struct Completion {
    pub(crate) call_id: String,
    /// The attempt that ran; a completion of a superseded attempt does not apply.
    pub(crate) attempt: i64,
    pub(crate) audit: AuditRow,
    /// The request the call now waits on, when its result is pending.
    pub(crate) pending: Option<PendingRow>,
    /// The request this run answered, when it was a resume: now resolved.
    pub(crate) resumed: Option<String>,
    pub(crate) now: i64,
}

/// A request to store with its suspended call.
#[derive(Debug, Clone)]
pub(crate) struct PendingRow {
    pub(crate) request_id: String,
    pub(crate) kind: String,
    pub(crate) request: String,
    pub(crate) expires_at: Option<i64>,
}

/// Records `done`; false when the call was no longer this attempt's (another runner took an
/// idempotent call over, or the host resolved it), in which case only the audit log gets it.
pub(super) async fn complete(
    conn: &mut AnyConnection,
    cx: &Cx<'_>,
    done: &Completion,
) -> Result<bool, JournalError> {
    let state = if done.pending.is_some() { "suspended" } else { "completed" };
    let request_id = done.pending.as_ref().map(|p| p.request_id.as_str());
    let updated = sqlx::query(
        "UPDATE journal_calls SET state = $1, receipt = $2, request_id = $3, owner = NULL, \
         lease_until = 0, updated_at = $4 \
         WHERE call_id = $5 AND attempt = $6 AND state IN ('running', 'unknown')",
    )
    .bind(state)
    .bind(&done.audit.receipt)
    .bind(request_id)
    .bind(done.now)
    .bind(&done.call_id)
    .bind(done.attempt)
    .execute(&mut *conn)
    .await
    .map_err(cx.fail("record a call's receipt"))?;
    append(conn, cx, &done.audit).await?;
    let applied = updated.rows_affected() == 1;
    if applied {
        if let Some(pending) = &done.pending {
            store_request(conn, cx, done, pending).await?;
        }
        if let Some(resumed) = &done.resumed {
            resolve_request(conn, cx, resumed, done.now).await?;
        }
    }
    Ok(applied)
}

async fn store_request(
    conn: &mut AnyConnection,
    cx: &Cx<'_>,
    done: &Completion,
    pending: &PendingRow,
) -> Result<(), JournalError> {
    sqlx::query(
        "INSERT INTO journal_requests (request_id, call_id, tool, kind, invocation_id, request, \
         expires_at, state, created_at, updated_at) \
         VALUES ($1, $2, $3, $4, $5, $6, $7, 'pending', $8, $8) ON CONFLICT (request_id) DO NOTHING",
    )
    .bind(&pending.request_id)
    .bind(&done.call_id)
    .bind(&done.audit.tool)
    .bind(&pending.kind)
    .bind(&done.audit.invocation_id)
    .bind(&pending.request)
    .bind(pending.expires_at)
    .bind(done.now)
    .execute(&mut *conn)
    .await
    .map_err(cx.fail("store a suspended call's request"))?;
    Ok(())
}

async fn resolve_request(
    conn: &mut AnyConnection,
    cx: &Cx<'_>,
    request_id: &str,
    now: i64,
) -> Result<(), JournalError> {
    sqlx::query(
        "UPDATE journal_requests SET state = 'resolved', updated_at = $1 WHERE request_id = $2",
    )
    .bind(now)
    .bind(request_id)
    .execute(&mut *conn)
    .await
    .map_err(cx.fail("resolve an answered request"))?;
    Ok(())
}
