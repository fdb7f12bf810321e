//! Appending a receipt to the audit log.

use sqlx::AnyConnection;
use toolwire::Receipt;
use toolwire::media::without_bytes;

use super::{Cx, Write};
use crate::error::JournalError;
use crate::store::millis;

/// A receipt as the audit log stores it: indexed columns beside its JSON.
#[derive(Debug, Clone)]
pub(crate) struct AuditRow {
    pub(crate) invocation_id: String,
    pub(crate) call_id: Option<String>,
    pub(crate) tool: String,
    pub(crate) started_at: i64,
    pub(crate) failure: Option<&'static str>,
    pub(crate) receipt: String,
}

impl AuditRow {
    /// The row of `receipt`. The audit log keeps no media: each part that holds bytes is
    /// kept as a text that names its kind, MIME type and size.
    pub(crate) fn of(receipt: &Receipt) -> Result<Self, JournalError> {
        let json = if receipt.result.parts().iter().any(|part| part.is_media()) {
            let mut kept = receipt.clone();
            kept.result = without_bytes(&receipt.result, "bytes not kept in the audit log");
            serde_json::to_string(&kept)
        } else {
            serde_json::to_string(receipt)
        };
        let json = json.map_err(|e| JournalError::corrupt("receipt", e))?;
        Ok(Self {
            invocation_id: receipt.invocation_id.to_string(),
            call_id: receipt.call_id.as_ref().map(|id| id.to_string()),
            tool: receipt.tool.to_string(),
            started_at: millis(receipt.started_at),
            failure: receipt.result.failure_kind().map(|kind| kind.as_str()),
            receipt: json,
        })
    }
}

/// The append of a receipt's row to the audit log.
#[derive(Debug, Clone)]
pub(crate) struct Append(pub(crate) AuditRow);

impl Write for Append {
    type Output = ();

    async fn run(&self, conn: &mut AnyConnection, cx: &Cx<'_>) -> Result<(), JournalError> {
        append(conn, cx, &self.0).await
    }
}

/// Appends `row`.
pub(super) async fn append(
    conn: &mut AnyConnection,
    cx: &Cx<'_>,
    row: &AuditRow,
) -> Result<(), JournalError> {
    sqlx::query(
        "INSERT INTO journal_receipts (invocation_id, call_id, tool, started_at, failure, receipt) \
         VALUES ($1, $2, $3, $4, $5, $6)",
    )
    .bind(&row.invocation_id)
    .bind(&row.call_id)
    .bind(&row.tool)
    .bind(row.started_at)
    .bind(row.failure)
    .bind(&row.receipt)
    .execute(&mut *conn)
    .await
    .map_err(cx.fail("append a receipt to the audit log"))?;
    Ok(())
}
