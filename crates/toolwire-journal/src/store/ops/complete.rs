//! Recording a call's receipt: the step after a journaled handler ran.

use sqlx::AnyConnection;

#[cfg(feature = "sqlite")]
use super::Grouped;
use super::audit::{AuditRow, append};
use super::{Cx, Write};
use crate::error::JournalError;
use crate::store::status::{CallStatus, RequestStatus};

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

impl Write for Completion {
    /// False when the call was no longer this attempt's (another runner took an idempotent
    /// call over, or the host resolved it), in which case only the audit log gets it.
    type Output = bool;

    async fn run(&self, conn: &mut AnyConnection, cx: &Cx<'_>) -> Result<bool, JournalError> {
        let state =
            if self.pending.is_some() { CallStatus::Suspended } else { CallStatus::Completed };
        let request_id = self.pending.as_ref().map(|p| p.request_id.as_str());
        let updated = sqlx::query(
            "UPDATE journal_calls SET state = $1, receipt = $2, request_id = $3, owner = NULL, \
             lease_until = 0, updated_at = $4 \
             WHERE call_id = $5 AND attempt = $6 AND state IN ($7, $8)",
        )
        .bind(state)
        .bind(&self.audit.receipt)
        .bind(request_id)
        .bind(self.now)
        .bind(&self.call_id)
        .bind(self.attempt)
        .bind(CallStatus::Running)
        .bind(CallStatus::Unknown)
        .execute(&mut *conn)
        .await
        .map_err(cx.fail("record a call's receipt"))?;
        append(conn, cx, &self.audit).await?;
        let applied = updated.rows_affected() == 1;
        if applied {
            if let Some(pending) = &self.pending {
                store_request(conn, cx, self, pending).await?;
            }
            if let Some(resumed) = &self.resumed {
                resolve_request(conn, cx, resumed, self.now).await?;
            }
        }
        Ok(applied)
    }

    /// Only a call that neither suspended nor resumed: its completion touches its row and
    /// the audit log, nothing else.
    #[cfg(feature = "sqlite")]
    fn grouped(&self) -> Option<Grouped<'_>> {
        let plain = self.pending.is_none() && self.resumed.is_none();
        plain.then_some(Grouped::Complete(self))
    }

    /// A shared update settles every plain completion: `won` is whether it applied.
    #[cfg(feature = "sqlite")]
    fn grouped_output(won: bool) -> Option<bool> {
        Some(won)
    }
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
         VALUES ($1, $2, $3, $4, $5, $6, $7, $9, $8, $8) ON CONFLICT (request_id) DO NOTHING",
    )
    .bind(&pending.request_id)
    .bind(&done.call_id)
    .bind(&done.audit.tool)
    .bind(&pending.kind)
    .bind(&done.audit.invocation_id)
    .bind(&pending.request)
    .bind(pending.expires_at)
    .bind(done.now)
    .bind(RequestStatus::Pending)
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
    sqlx::query("UPDATE journal_requests SET state = $3, updated_at = $1 WHERE request_id = $2")
        .bind(now)
        .bind(request_id)
        .bind(RequestStatus::Resolved)
        .execute(&mut *conn)
        .await
        .map_err(cx.fail("resolve an answered request"))?;
    Ok(())
}
