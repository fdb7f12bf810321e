//! The host's resolution of a call whose outcome is unknown.

use sqlx::AnyConnection;

use super::Cx;
use super::audit::{AuditRow, append};
use crate::error::JournalError;

/// How the host resolves a call of unknown outcome.
#[derive(Debug, Clone)]
pub(crate) struct Resolve {
    pub(crate) call_id: String,
    /// The receipt to record (the call took effect), or `None`: it did not, and may run
    /// again.
    pub(crate) completed: Option<AuditRow>,
    pub(crate) now: i64,
}

/// False when the call was not of unknown outcome.
pub(super) async fn resolve(
    conn: &mut AnyConnection,
    cx: &Cx<'_>,
    r: &Resolve,
) -> Result<bool, JournalError> {
    let query = match &r.completed {
        Some(audit) => sqlx::query(
            "UPDATE journal_calls SET state = 'completed', receipt = $1, owner = NULL, lease_until = 0, \
             updated_at = $2 WHERE call_id = $3 AND state = 'unknown'",
        )
        .bind(audit.receipt.as_str()),
        None => sqlx::query(
            "UPDATE journal_calls SET state = 'retry', receipt = $1, owner = NULL, lease_until = 0, \
             updated_at = $2 WHERE call_id = $3 AND state = 'unknown'",
        )
        .bind(None::<&str>),
    };
    let done = query
        .bind(r.now)
        .bind(&r.call_id)
        .execute(&mut *conn)
        .await
        .map_err(cx.fail("resolve a call of unknown outcome"))?;
    let applied = done.rows_affected() == 1;
    if let (true, Some(audit)) = (applied, &r.completed) {
        append(conn, cx, audit).await?;
    }
    if applied {
        // A process that died resuming the call left its request "resuming": the call's
        // resolution resolves it too.
        sqlx::query(
            "UPDATE journal_requests SET state = 'resolved', updated_at = $1 \
             WHERE call_id = $2 AND state = 'resuming'",
        )
        .bind(r.now)
        .bind(&r.call_id)
        .execute(&mut *conn)
        .await
        .map_err(cx.fail("resolve a resumed call's request"))?;
    }
    Ok(applied)
}
