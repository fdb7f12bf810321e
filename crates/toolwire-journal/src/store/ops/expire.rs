//! Resolving lapsed requests as declined, with the reason "expired".

use sqlx::AnyConnection;
use toolwire::{Answer, CallId, FailureKind, Receipt, ToolResult};

use super::audit::{AuditRow, append};
use super::settle::settle;
use super::{Cx, Write};
use crate::error::JournalError;
use crate::store::rows::REQUEST_COLUMNS;
use crate::store::status::{CallStatus, RequestStatus};
use crate::store::{RequestRow, shown_time, time_of};

/// The reason of the declining answer an expired request gets.
const EXPIRED: &str = "expired";

/// The expiry of every pending request whose time is up by `now`.
#[derive(Debug, Clone)]
pub(crate) struct ExpireDue {
    pub(crate) now: i64,
}

impl Write for ExpireDue {
    /// The receipts of the calls whose requests expired.
    type Output = Vec<Receipt>;

    async fn run(
        &self,
        conn: &mut AnyConnection,
        cx: &Cx<'_>,
    ) -> Result<Vec<Receipt>, JournalError> {
        let sql = format!(
            "SELECT {REQUEST_COLUMNS} FROM journal_requests \
             WHERE state = $2 AND expires_at IS NOT NULL AND expires_at <= $1"
        );
        let rows = sqlx::query(&sql)
            .bind(self.now)
            .bind(RequestStatus::Pending)
            .fetch_all(&mut *conn)
            .await
            .map_err(cx.fail("find lapsed requests"))?;
        let mut receipts = Vec::with_capacity(rows.len());
        for row in &rows {
            if let Some(receipt) = expire_one(conn, cx, &RequestRow::read(row)?, self.now).await? {
                receipts.push(receipt);
            }
        }
        Ok(receipts)
    }
}

/// Expires one pending request: it is declined as expired, and its call completes with a
/// denial that says so. `None` if it was no longer pending.
pub(super) async fn expire_one(
    conn: &mut AnyConnection,
    cx: &Cx<'_>,
    row: &RequestRow,
    now: i64,
) -> Result<Option<Receipt>, JournalError> {
    let answer = Answer::decline(row.request_id.clone(), EXPIRED);
    if settle(conn, cx, &answer, RequestStatus::Expired, now).await?.is_none() {
        return Ok(None);
    }
    let receipt = expired_receipt(row, now);
    let audit = AuditRow::of(&receipt)?;
    sqlx::query(
        "UPDATE journal_calls SET state = $5, receipt = $1, request_id = NULL, updated_at = $2 \
         WHERE call_id = $3 AND state = $6 AND request_id = $4",
    )
    .bind(&audit.receipt)
    .bind(now)
    .bind(&row.call_id)
    .bind(&row.request_id)
    .bind(CallStatus::Completed)
    .bind(CallStatus::Suspended)
    .execute(&mut *conn)
    .await
    .map_err(cx.fail("complete an expired call"))?;
    append(conn, cx, &audit).await?;
    Ok(Some(receipt))
}

/// The receipt of a call whose request expired: declined, never run again.
fn expired_receipt(row: &RequestRow, now: i64) -> Receipt {
    let at = row.expires_at.map_or_else(|| "now".to_owned(), shown_time);
    let text = format!(
        "request {:?} of {:?} expired at {at}: declined (reason: {EXPIRED})",
        row.request_id, row.tool
    );
    let result = ToolResult::failed(FailureKind::Denied, text);
    Receipt::new(row.tool.as_str(), Some(CallId::from(row.call_id.as_str())), result)
        .with_started_at(time_of(now))
}
