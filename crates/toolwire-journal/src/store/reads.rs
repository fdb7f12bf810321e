//! The journal's reads: they go to the pool, outside the writer, and take no locks.

use sqlx::{AnyPool, Row};

use super::rows::CALL_COLUMNS;
use super::status::{CallStatus, RequestStatus};
use super::{CallRow, RequestRow};
use crate::error::JournalError;

/// The row of `call_id`, if any.
pub(crate) async fn call(
    pool: &AnyPool,
    place: &str,
    call_id: &str,
) -> Result<Option<CallRow>, JournalError> {
    let sql = format!("SELECT {CALL_COLUMNS} FROM journal_calls WHERE call_id = $1");
    let row = sqlx::query(&sql)
        .bind(call_id)
        .fetch_optional(pool)
        .await
        .map_err(|e| JournalError::database("read a call", place, e))?;
    row.as_ref().map(CallRow::read).transpose()
}

/// The digest and receipt of `call_id`, if it completed: the read a replay needs.
pub(crate) async fn completed(
    pool: &AnyPool,
    place: &str,
    call_id: &str,
) -> Result<Option<(String, String)>, JournalError> {
    let row =
        sqlx::query("SELECT digest, receipt FROM journal_calls WHERE call_id = $1 AND state = $2")
            .bind(call_id)
            .bind(CallStatus::Completed)
            .fetch_optional(pool)
            .await
            .map_err(|e| JournalError::database("read a call", place, e))?;
    let Some(row) = row else { return Ok(None) };
    let bad = |e: sqlx::Error| JournalError::corrupt("call row", e);
    let digest: String = row.try_get(0).map_err(bad)?;
    let receipt: Option<String> = row.try_get(1).map_err(bad)?;
    Ok(receipt.map(|receipt| (digest, receipt)))
}

/// The calls in `state`, oldest first.
pub(crate) async fn calls_in(
    pool: &AnyPool,
    place: &str,
    state: CallStatus,
) -> Result<Vec<CallRow>, JournalError> {
    let sql = format!(
        "SELECT {CALL_COLUMNS} FROM journal_calls WHERE state = $1 ORDER BY started_at, call_id"
    );
    let rows = sqlx::query(&sql)
        .bind(state)
        .fetch_all(pool)
        .await
        .map_err(|e| JournalError::database("list calls", place, e))?;
    rows.iter().map(CallRow::read).collect()
}

/// The requests still open (not yet resumed or expired), oldest first, of `tool` and `kind`
/// when given, each with its call's arguments.
pub(crate) async fn open_requests(
    pool: &AnyPool,
    place: &str,
    tool: Option<&str>,
    kind: Option<&str>,
) -> Result<Vec<(RequestRow, String)>, JournalError> {
    let sql = "SELECT r.request_id, r.call_id, r.tool, r.kind, r.invocation_id, r.request, \
         r.expires_at, r.state, r.answer, r.created_at, c.arguments \
         FROM journal_requests r JOIN journal_calls c ON c.call_id = r.call_id \
         WHERE r.state IN ($3, $4) AND ($1 IS NULL OR r.tool = $1) \
         AND ($2 IS NULL OR r.kind = $2) ORDER BY r.created_at, r.request_id";
    let rows = sqlx::query(sql)
        .bind(tool)
        .bind(kind)
        .bind(RequestStatus::Pending)
        .bind(RequestStatus::Answered)
        .fetch_all(pool)
        .await
        .map_err(|e| JournalError::database("list pending requests", place, e))?;
    let arguments = |row: &sqlx::any::AnyRow| {
        row.try_get::<String, _>(10).map_err(|e| JournalError::corrupt("arguments", e))
    };
    rows.iter().map(|row| Ok((RequestRow::read(row)?, arguments(row)?))).collect()
}

/// What to read back from the audit log; every filter given must hold.
#[derive(Debug, Clone)]
pub(crate) struct AuditFilter<'a> {
    pub(crate) call_id: Option<&'a str>,
    pub(crate) tool: Option<&'a str>,
    pub(crate) since: Option<i64>,
    pub(crate) until: Option<i64>,
    pub(crate) failure: Option<&'a str>,
    /// Only successes (`Some(true)`) or only failures (`Some(false)`).
    pub(crate) success: Option<bool>,
    pub(crate) limit: i64,
}

/// The receipts that match `filter`, as JSON, in the order they were appended.
pub(crate) async fn receipts(
    pool: &AnyPool,
    place: &str,
    filter: &AuditFilter<'_>,
) -> Result<Vec<String>, JournalError> {
    let success = filter.success.map(|ok| if ok { 1_i64 } else { 0 });
    let rows = sqlx::query(
        "SELECT receipt FROM journal_receipts WHERE ($1 IS NULL OR call_id = $1) \
         AND ($2 IS NULL OR tool = $2) AND ($3 IS NULL OR started_at >= $3) \
         AND ($4 IS NULL OR started_at < $4) AND ($5 IS NULL OR failure = $5) \
         AND ($6 IS NULL OR ($6 = 1 AND failure IS NULL) OR ($6 = 0 AND failure IS NOT NULL)) \
         ORDER BY seq LIMIT $7",
    )
    .bind(filter.call_id)
    .bind(filter.tool)
    .bind(filter.since)
    .bind(filter.until)
    .bind(filter.failure)
    .bind(success)
    .bind(filter.limit)
    .fetch_all(pool)
    .await
    .map_err(|e| JournalError::database("read the audit log", place, e))?;
    rows.iter()
        .map(|row| row.try_get::<String, _>(0).map_err(|e| JournalError::corrupt("receipt", e)))
        .collect()
}

/// The record and version of task `task_id`, unless it is unknown or expired by `now`.
pub(crate) async fn task(
    pool: &AnyPool,
    place: &str,
    task_id: &str,
    now: i64,
) -> Result<Option<(String, i64)>, JournalError> {
    let row = sqlx::query(
        "SELECT record, version FROM journal_tasks WHERE task_id = $1 AND expires_at > $2",
    )
    .bind(task_id)
    .bind(now)
    .fetch_optional(pool)
    .await
    .map_err(|e| JournalError::database("read a task", place, e))?;
    let Some(row) = row else { return Ok(None) };
    let bad = |e: sqlx::Error| JournalError::corrupt("task row", e);
    let record: String = row.try_get(0).map_err(bad)?;
    let version: i64 = row.try_get(1).map_err(bad)?;
    Ok(Some((record, version)))
}

/// The records and versions of the live tasks, oldest first, at most `limit`.
pub(crate) async fn live_tasks(
    pool: &AnyPool,
    place: &str,
    now: i64,
    limit: i64,
) -> Result<Vec<(String, i64)>, JournalError> {
    let rows = sqlx::query(
        "SELECT record, version FROM journal_tasks WHERE expires_at > $1 \
         ORDER BY task_id LIMIT $2",
    )
    .bind(now)
    .bind(limit)
    .fetch_all(pool)
    .await
    .map_err(|e| JournalError::database("list tasks", place, e))?;
    let bad = |e: sqlx::Error| JournalError::corrupt("task row", e);
    rows.iter()
        .map(|row| Ok((row.try_get(0).map_err(bad)?, row.try_get(1).map_err(bad)?)))
        .collect()
}
