//! Settling a pending request, as answered or as expired: the one write both an answer and an
//! expiry make to the request's row.

use sqlx::AnyConnection;
use toolwire::Answer;

use super::Cx;
use crate::error::JournalError;
use crate::store::status::RequestStatus;

/// Settles the pending request `answer.id` as `state` (answered or expired) with
/// `answer`: its JSON, or `None` when the request was no longer pending.
pub(super) async fn settle(
    conn: &mut AnyConnection,
    cx: &Cx<'_>,
    answer: &Answer,
    state: RequestStatus,
    now: i64,
) -> Result<Option<String>, JournalError> {
    let json = serde_json::to_string(answer).map_err(|e| JournalError::corrupt("answer", e))?;
    let done = sqlx::query(
        "UPDATE journal_requests SET state = $1, answer = $2, updated_at = $3 \
         WHERE request_id = $4 AND state = $5",
    )
    .bind(state)
    .bind(&json)
    .bind(now)
    .bind(&answer.id)
    .bind(RequestStatus::Pending)
    .execute(&mut *conn)
    .await
    .map_err(cx.fail("settle a request"))?;
    Ok((done.rows_affected() > 0).then_some(json))
}
