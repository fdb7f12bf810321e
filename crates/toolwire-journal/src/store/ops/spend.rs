//! Spending an approval: one conditional insert, atomic in both backends.

use sqlx::AnyConnection;

use super::Cx;
use crate::error::JournalError;

/// Records `approval_id` as spent; `false` when it was spent before. Rows of approvals that
/// lapsed by `now` are dropped first, so the table holds live approvals only.
pub(super) async fn spend(
    conn: &mut AnyConnection,
    cx: &Cx<'_>,
    approval_id: &str,
    digest: &str,
    expires_at: i64,
    now: i64,
) -> Result<bool, JournalError> {
    sqlx::query("DELETE FROM journal_spent WHERE expires_at <= $1")
        .bind(now)
        .execute(&mut *conn)
        .await
        .map_err(cx.fail("drop lapsed approvals"))?;
    let inserted = sqlx::query(
        "INSERT INTO journal_spent (approval_id, digest, expires_at, spent_at) \
         VALUES ($1, $2, $3, $4) ON CONFLICT (approval_id) DO NOTHING",
    )
    .bind(approval_id)
    .bind(digest)
    .bind(expires_at)
    .bind(now)
    .execute(&mut *conn)
    .await
    .map_err(cx.fail("spend an approval"))?;
    Ok(inserted.rows_affected() == 1)
}
