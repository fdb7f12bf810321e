//! Writing paused agent runs: saving one with the requests it waits on (here), claiming it
//! for a resume, releasing and removing it ([`claim`]), and recording answers ([`answer`]).

mod answer;
mod claim;

use std::collections::HashMap;

use sqlx::{AnyConnection, Row};

pub(crate) use answer::{AnswerRun, RunAnswered};
pub(crate) use claim::{ClaimRun, ReleaseRun, RemoveRun};

use super::{Cx, Write};
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

impl Write for SaveRun {
    type Output = ();

    /// Saves the run, replacing what was saved under its id, and releases any claim on it.
    /// An answer recorded before for a request the run still waits on is kept.
    async fn run(&self, conn: &mut AnyConnection, cx: &Cx<'_>) -> Result<(), JournalError> {
        save(conn, cx, self).await
    }
}

async fn save(conn: &mut AnyConnection, cx: &Cx<'_>, run: &SaveRun) -> Result<(), JournalError> {
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
