//! Claiming a paused run for a resume, one claim at a time; letting it go; forgetting it.

use sqlx::AnyConnection;

use super::super::{Cx, Write};
use crate::error::JournalError;

/// A claim of a paused run for a resume, until `until`, unless a claim holds it at `now`.
#[derive(Debug, Clone)]
pub(crate) struct ClaimRun {
    pub(crate) run_id: String,
    pub(crate) until: i64,
    pub(crate) now: i64,
}

impl Write for ClaimRun {
    /// Whether it was claimed.
    type Output = bool;

    async fn run(&self, conn: &mut AnyConnection, cx: &Cx<'_>) -> Result<bool, JournalError> {
        let done = sqlx::query(
            "UPDATE journal_runs SET claimed_until = $1, updated_at = $2 \
             WHERE run_id = $3 AND claimed_until <= $2",
        )
        .bind(self.until)
        .bind(self.now)
        .bind(&self.run_id)
        .execute(&mut *conn)
        .await
        .map_err(cx.fail("claim a run"))?;
        Ok(done.rows_affected() == 1)
    }
}

/// A paused run to let be claimed again.
#[derive(Debug, Clone)]
pub(crate) struct ReleaseRun {
    pub(crate) run_id: String,
}

impl Write for ReleaseRun {
    /// Whether the journal holds the run.
    type Output = bool;

    async fn run(&self, conn: &mut AnyConnection, cx: &Cx<'_>) -> Result<bool, JournalError> {
        let done = sqlx::query("UPDATE journal_runs SET claimed_until = 0 WHERE run_id = $1")
            .bind(&self.run_id)
            .execute(&mut *conn)
            .await
            .map_err(cx.fail("release a run"))?;
        Ok(done.rows_affected() == 1)
    }
}

/// A paused run to forget, with its requests.
#[derive(Debug, Clone)]
pub(crate) struct RemoveRun {
    pub(crate) run_id: String,
}

impl Write for RemoveRun {
    /// Whether the journal held the run.
    type Output = bool;

    async fn run(&self, conn: &mut AnyConnection, cx: &Cx<'_>) -> Result<bool, JournalError> {
        sqlx::query("DELETE FROM journal_run_requests WHERE run_id = $1")
            .bind(&self.run_id)
            .execute(&mut *conn)
            .await
            .map_err(cx.fail("remove a run's requests"))?;
        let done = sqlx::query("DELETE FROM journal_runs WHERE run_id = $1")
            .bind(&self.run_id)
            .execute(&mut *conn)
            .await
            .map_err(cx.fail("remove a run"))?;
        Ok(done.rows_affected() == 1)
    }
}
