//! The host's resolution of a call whose outcome is unknown.

use sqlx::AnyConnection;

use super::audit::{AuditRow, append};
use super::{Cx, Write};
use crate::error::JournalError;
use crate::store::status::{CallStatus, RequestStatus};

/// How the host resolves a call of unknown outcome.
#[derive(Debug, Clone)]
pub(crate) struct Resolve {
    pub(crate) call_id: String,
    /// The receipt to record (the call took effect), or `None`: it did not, and may run
    /// again.
    pub(crate) completed: Option<AuditRow>,
    pub(crate) now: i64,
}

impl Write for Resolve {
    /// False when the call was not of unknown outcome.
    type Output = bool;

    async fn run(&self, conn: &mut AnyConnection, cx: &Cx<'_>) -> Result<bool, JournalError> {
        let (state, receipt) = match &self.completed {
            Some(audit) => (CallStatus::Completed, Some(audit.receipt.as_str())),
            None => (CallStatus::Retry, None),
        };
        let done = sqlx::query(
            "UPDATE journal_calls SET state = $4, receipt = $1, owner = NULL, lease_until = 0, \
             updated_at = $2 WHERE call_id = $3 AND state = $5",
        )
        .bind(receipt)
        .bind(self.now)
        .bind(&self.call_id)
        .bind(state)
        .bind(CallStatus::Unknown)
        .execute(&mut *conn)
        .await
        .map_err(cx.fail("resolve a call of unknown outcome"))?;
        let applied = done.rows_affected() == 1;
        if let (true, Some(audit)) = (applied, &self.completed) {
            append(conn, cx, audit).await?;
        }
        if applied {
            resolve_resuming(conn, cx, self).await?;
        }
        Ok(applied)
    }
}

/// A process that died resuming the call left its request resuming: the call's resolution
/// resolves it too.
async fn resolve_resuming(
    conn: &mut AnyConnection,
    cx: &Cx<'_>,
    r: &Resolve,
) -> Result<(), JournalError> {
    sqlx::query(
        "UPDATE journal_requests SET state = $3, updated_at = $1 \
         WHERE call_id = $2 AND state = $4",
    )
    .bind(r.now)
    .bind(&r.call_id)
    .bind(RequestStatus::Resolved)
    .bind(RequestStatus::Resuming)
    .execute(&mut *conn)
    .await
    .map_err(cx.fail("resolve a resumed call's request"))?;
    Ok(())
}
