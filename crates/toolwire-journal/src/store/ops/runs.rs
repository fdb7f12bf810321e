//! Writing paused agent runs: saving one with the requests it waits on, claiming it for a
//! resume, recording answers, and removing it.

use std::collections::HashMap;

use sqlx::{AnyConnection, Row};

use super::Cx;
use crate::error::JournalError;

/// A paused run to save, as rows.
#[derive(Debug, Clone)]
pub(crate) struct SaveRun {
    pub(crate) run_id: String,
    pub(crate) label: String,
    pub(crate) state: String,
    pub(crate) waiting: Vec<WaitRow>,
    pub(crate) now: i64,
}

/// One request a paused run waits on, as a row.
#[derive(Debug, Clone)]
pub(crate) struct WaitRow {
    pub(crate) request_id: String,
    pub(crate) call_id: String,
    pub(crate) tool: String,
    pub(crate) request: String,
    pub(crate) expires_at: Option<i64>,
    pub(crate) answer: Option<String>,
}

/// What became of an answer to a run's request.
#[derive(Debug)]
pub(crate) enum RunAnswered {
    /// Recorded, for the run with this id.
    Recorded(String),
    /// No paused run waits on a request with this id.
    Unknown,
    /// The request has an answer already: the first, as JSON.
    Duplicate(String),
    /// The request lapsed before the answer came.
    Expired,
}

/// Saves `run`, replacing what was saved under its id, and releases any claim on it. An
/// answer recorded before for a request the run still waits on is kept.
pub(super) async fn save(
    conn: &mut AnyConnection,
    cx: &Cx<'_>,
    run: &SaveRun,
) -> Result<(), JournalError> {
    sqlx::query(
        "INSERT INTO journal_runs (run_id, label, state, claimed_until, created_at, updated_at) \
         VALUES ($1, $2, $3, 0, $4, $4) ON CONFLICT (run_id) DO UPDATE SET \
         label = excluded.label, state = excluded.state, claimed_until = 0, \
         updated_at = excluded.updated_at",
    )
    .bind(&run.run_id)
    .bind(&run.label)
    .bind(&run.state)
    .bind(run.now)
    .execute(&mut *conn)
    .await
    .map_err(cx.fail("save a run"))?;
    let earlier = recorded_answers(conn, cx, &run.run_id).await?;
    sqlx::query("DELETE FROM journal_run_requests WHERE run_id = $1")
        .bind(&run.run_id)
        .execute(&mut *conn)
        .await
        .map_err(cx.fail("save a run's requests"))?;
    for (position, wait) in run.waiting.iter().enumerate() {
        let (answer, answered_at) = match &wait.answer {
            Some(answer) => (Some(answer.as_str()), Some(run.now)),
            None => earlier.get(&wait.request_id).map(|(a, at)| (a.as_str(), *at)).unzip(),
        };
        sqlx::query(
            "INSERT INTO journal_run_requests (request_id, run_id, position, call_id, tool, \
             request, expires_at, answer, answered_at) \
             VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9)",
        )
        .bind(&wait.request_id)
        .bind(&run.run_id)
        .bind(i64::try_from(position).unwrap_or(i64::MAX))
        .bind(&wait.call_id)
        .bind(&wait.tool)
        .bind(&wait.request)
        .bind(wait.expires_at)
        .bind(answer)
        .bind(answered_at)
        .execute(&mut *conn)
        .await
        .map_err(cx.fail("save a run's requests"))?;
    }
    Ok(())
}

/// The answers recorded for `run_id`'s requests, by request id, with when.
async fn recorded_answers(
    conn: &mut AnyConnection,
    cx: &Cx<'_>,
    run_id: &str,
) -> Result<HashMap<String, (String, i64)>, JournalError> {
    let rows = sqlx::query(
        "SELECT request_id, answer, answered_at FROM journal_run_requests \
         WHERE run_id = $1 AND answer IS NOT NULL",
    )
    .bind(run_id)
    .fetch_all(&mut *conn)
    .await
    .map_err(cx.fail("read a run's answers"))?;
    let bad = |e: sqlx::Error| JournalError::corrupt("run request row", e);
    let mut found = HashMap::with_capacity(rows.len());
    for row in rows {
        let id: String = row.try_get(0).map_err(bad)?;
        let answer: String = row.try_get(1).map_err(bad)?;
        let at: Option<i64> = row.try_get(2).map_err(bad)?;
        found.insert(id, (answer, at.unwrap_or_default()));
    }
    Ok(found)
}

/// Claims `run_id` for a resume until `until`, unless another claim holds it at `now`;
/// whether it was claimed.
pub(super) async fn claim(
    conn: &mut AnyConnection,
    cx: &Cx<'_>,
    run_id: &str,
    until: i64,
    now: i64,
) -> Result<bool, JournalError> {
    let done = sqlx::query(
        "UPDATE journal_runs SET claimed_until = $1, updated_at = $2 \
         WHERE run_id = $3 AND claimed_until <= $2",
    )
    .bind(until)
    .bind(now)
    .bind(run_id)
    .execute(&mut *conn)
    .await
    .map_err(cx.fail("claim a run"))?;
    Ok(done.rows_affected() == 1)
}

/// Lets `run_id` be claimed again; whether the journal holds it.
pub(super) async fn release(
    conn: &mut AnyConnection,
    cx: &Cx<'_>,
    run_id: &str,
) -> Result<bool, JournalError> {
    let done = sqlx::query("UPDATE journal_runs SET claimed_until = 0 WHERE run_id = $1")
        .bind(run_id)
        .execute(&mut *conn)
        .await
        .map_err(cx.fail("release a run"))?;
    Ok(done.rows_affected() == 1)
}

/// Forgets `run_id` and its requests; whether the journal held it.
pub(super) async fn remove(
    conn: &mut AnyConnection,
    cx: &Cx<'_>,
    run_id: &str,
) -> Result<bool, JournalError> {
    sqlx::query("DELETE FROM journal_run_requests WHERE run_id = $1")
        .bind(run_id)
        .execute(&mut *conn)
        .await
        .map_err(cx.fail("remove a run's requests"))?;
    let done = sqlx::query("DELETE FROM journal_runs WHERE run_id = $1")
        .bind(run_id)
        .execute(&mut *conn)
        .await
        .map_err(cx.fail("remove a run"))?;
    Ok(done.rows_affected() == 1)
}

/// Records `answer` (as JSON) to the run request `request_id`; the first answer stands.
pub(super) async fn answer(
    conn: &mut AnyConnection,
    cx: &Cx<'_>,
    request_id: &str,
    answer: &str,
    now: i64,
) -> Result<RunAnswered, JournalError> {
    let row = sqlx::query(
        "SELECT run_id, expires_at, answer FROM journal_run_requests WHERE request_id = $1",
    )
    .bind(request_id)
    .fetch_optional(&mut *conn)
    .await
    .map_err(cx.fail("read a run's request"))?;
    let Some(row) = row else { return Ok(RunAnswered::Unknown) };
    let bad = |e: sqlx::Error| JournalError::corrupt("run request row", e);
    let run_id: String = row.try_get(0).map_err(bad)?;
    let expires_at: Option<i64> = row.try_get(1).map_err(bad)?;
    let first: Option<String> = row.try_get(2).map_err(bad)?;
    if let Some(first) = first {
        return Ok(RunAnswered::Duplicate(first));
    }
    if expires_at.is_some_and(|at| at <= now) {
        return Ok(RunAnswered::Expired);
    }
    let done = sqlx::query(
        "UPDATE journal_run_requests SET answer = $1, answered_at = $2 \
         WHERE request_id = $3 AND answer IS NULL",
    )
    .bind(answer)
    .bind(now)
    .bind(request_id)
    .execute(&mut *conn)
    .await
    .map_err(cx.fail("record an answer"))?;
    if done.rows_affected() == 0 {
        return Ok(RunAnswered::Duplicate(String::new()));
    }
    Ok(RunAnswered::Recorded(run_id))
}
