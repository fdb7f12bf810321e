//! Recording an answer to a paused run's request: the first answer stands.

use sqlx::{AnyConnection, Row};

use super::super::{Cx, Write};
use crate::error::JournalError;

/// An answer (as JSON) to a paused run's request, given at `now`.
#[derive(Debug, Clone)]
pub(crate) struct AnswerRun {
    pub(crate) request_id: String,
    pub(crate) answer: String,
    pub(crate) now: i64,
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

impl Write for AnswerRun {
    type Output = RunAnswered;

    async fn run(
        &self,
        conn: &mut AnyConnection,
        cx: &Cx<'_>,
    ) -> Result<RunAnswered, JournalError> {
        let row = sqlx::query(
            "SELECT run_id, expires_at, answer FROM journal_run_requests WHERE request_id = $1",
        )
        .bind(&self.request_id)
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
        if expires_at.is_some_and(|at| at <= self.now) {
            return Ok(RunAnswered::Expired);
        }
        let done = sqlx::query(
            "UPDATE journal_run_requests SET answer = $1, answered_at = $2 \
             WHERE request_id = $3 AND answer IS NULL",
        )
        .bind(&self.answer)
        .bind(self.now)
        .bind(&self.request_id)
        .execute(&mut *conn)
        .await
        .map_err(cx.fail("record an answer"))?;
        if done.rows_affected() == 0 {
            return Ok(RunAnswered::Duplicate(String::new()));
        }
        Ok(RunAnswered::Recorded(run_id))
    }
}
