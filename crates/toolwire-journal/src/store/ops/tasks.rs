//! Writing tasks: a create that fails on a taken id, and a compare-and-set on the version.

use sqlx::AnyConnection;

use super::{Cx, Write};
use crate::error::JournalError;

/// A new task, unless its id is taken.
#[derive(Debug, Clone)]
pub(crate) struct CreateTask {
    pub(crate) task_id: String,
    pub(crate) record: String,
    pub(crate) expires_at: i64,
    pub(crate) now: i64,
}

impl Write for CreateTask {
    /// `false` when the id is taken by a live task.
    type Output = bool;

    /// Tasks that expired by `now` are dropped first, so the table holds live tasks only.
    async fn run(&self, conn: &mut AnyConnection, cx: &Cx<'_>) -> Result<bool, JournalError> {
        sqlx::query("DELETE FROM journal_tasks WHERE expires_at <= $1")
            .bind(self.now)
            .execute(&mut *conn)
            .await
            .map_err(cx.fail("drop expired tasks"))?;
        let inserted = sqlx::query(
            "INSERT INTO journal_tasks (task_id, version, record, expires_at) \
             VALUES ($1, 0, $2, $3) ON CONFLICT (task_id) DO NOTHING",
        )
        .bind(&self.task_id)
        .bind(&self.record)
        .bind(self.expires_at)
        .execute(&mut *conn)
        .await
        .map_err(cx.fail("create a task"))?;
        Ok(inserted.rows_affected() == 1)
    }
}

/// A task's new record, written only if its stored version is still `version`.
#[derive(Debug, Clone)]
pub(crate) struct UpdateTask {
    pub(crate) task_id: String,
    pub(crate) version: i64,
    pub(crate) record: String,
    pub(crate) expires_at: i64,
    pub(crate) now: i64,
}

impl Write for UpdateTask {
    /// Whether it was written: `false` when the task changed meanwhile, or is gone.
    type Output = bool;

    async fn run(&self, conn: &mut AnyConnection, cx: &Cx<'_>) -> Result<bool, JournalError> {
        let updated = sqlx::query(
            "UPDATE journal_tasks SET version = version + 1, record = $1, expires_at = $2 \
             WHERE task_id = $3 AND version = $4 AND expires_at > $5",
        )
        .bind(&self.record)
        .bind(self.expires_at)
        .bind(&self.task_id)
        .bind(self.version)
        .bind(self.now)
        .execute(&mut *conn)
        .await
        .map_err(cx.fail("update a task"))?;
        Ok(updated.rows_affected() == 1)
    }
}
