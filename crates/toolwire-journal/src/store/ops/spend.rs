//! Spending an approval: one conditional insert, atomic in both backends.

use sqlx::AnyConnection;

use super::{Cx, Write};
use crate::error::JournalError;

/// An approval to record as spent, unless it was spent before.
#[derive(Debug, Clone)]
pub(crate) struct Spend {
    pub(crate) approval_id: String,
    pub(crate) digest: String,
    pub(crate) expires_at: i64,
    pub(crate) now: i64,
}

impl Write for Spend {
    /// `false` when it was spent before.
    type Output = bool;

    /// Rows of approvals that lapsed by `now` are dropped first, so the table holds live
    /// approvals only.
    async fn run(&self, conn: &mut AnyConnection, cx: &Cx<'_>) -> Result<bool, JournalError> {
        sqlx::query("DELETE FROM journal_spent WHERE expires_at <= $1")
            .bind(self.now)
            .execute(&mut *conn)
            .await
            .map_err(cx.fail("drop lapsed approvals"))?;
        let inserted = sqlx::query(
            "INSERT INTO journal_spent (approval_id, digest, expires_at, spent_at) \
         VALUES ($1, $2, $3, $4) ON CONFLICT (approval_id) DO NOTHING",
        )
        .bind(&self.approval_id)
        .bind(&self.digest)
        .bind(self.expires_at)
        .bind(self.now)
        .execute(&mut *conn)
        .await
        .map_err(cx.fail("spend an approval"))?;
        Ok(inserted.rows_affected() == 1)
    }
}
