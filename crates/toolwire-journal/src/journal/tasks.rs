//! The journal as a [`TaskStore`]: tasks that every process sharing the journal sees, and
//! that outlive the process that started them.

use toolwire::tasks::{TaskFuture, TaskRecord, TaskStore, TaskStoreError};

use super::Journal;
use crate::store::ops::{CreateTask, UpdateTask};
use crate::store::{millis, now_millis, reads};

/// Tasks kept in the journal's `journal_tasks` table, one JSON record per task, each change
/// a compare-and-set on its version. An MCP server that keeps its tasks here serves them
/// after a restart, and servers sharing a PostgreSQL journal serve each other's.
///
/// ```
/// # #[tokio::main(flavor = "current_thread")] async fn main() -> Result<(), Box<dyn std::error::Error>> {
/// use std::sync::Arc;
/// use toolwire::tasks::TaskStore;
/// use toolwire_journal::Journal;
///
/// let dir = tempfile::tempdir()?;
/// let journal = Journal::open(&format!("sqlite:{}", dir.path().join("calls.db").display())).await?;
/// let store: Arc<dyn TaskStore> = Arc::new(journal.clone());
/// assert!(store.get("no-such-task").await?.is_none());
/// # Ok(()) }
/// ```
impl TaskStore for Journal {
    fn create(&self, record: TaskRecord) -> TaskFuture<()> {
        let journal = self.clone();
        Box::pin(async move {
            let write = CreateTask {
                task_id: record.id.clone(),
                record: encode(&record)?,
                expires_at: millis(record.expires_at),
                now: now_millis(),
            };
            match journal.engine.write(write).await {
                Ok(true) => Ok(()),
                Ok(false) => Err(TaskStoreError(format!("task id {:?} is taken", record.id))),
                Err(error) => Err(TaskStoreError(error.to_string())),
            }
        })
    }

    fn get(&self, id: &str) -> TaskFuture<Option<TaskRecord>> {
        let journal = self.clone();
        let id = id.to_owned();
        Box::pin(async move {
            let engine = &journal.engine;
            let found = reads::task(engine.reader(), engine.place(), &id, now_millis())
                .await
                .map_err(|error| TaskStoreError(error.to_string()))?;
            let Some((text, version)) = found else { return Ok(None) };
            let mut record: TaskRecord = serde_json::from_str(&text).map_err(|error| {
                TaskStoreError(format!("the journal holds an unreadable task {id:?}: {error}"))
            })?;
            // The column is what the compare-and-set compares.
            record.version = u64::try_from(version).unwrap_or_default();
            Ok(Some(record))
        })
    }

    fn update(&self, record: TaskRecord) -> TaskFuture<bool> {
        let journal = self.clone();
        Box::pin(async move {
            let Ok(version) = i64::try_from(record.version) else { return Ok(false) };
            let write = UpdateTask {
                task_id: record.id.clone(),
                version,
                record: encode(&record)?,
                expires_at: millis(record.expires_at),
                now: now_millis(),
            };
            journal.engine.write(write).await.map_err(|error| TaskStoreError(error.to_string()))
        })
    }
}

fn encode(record: &TaskRecord) -> Result<String, TaskStoreError> {
    serde_json::to_string(record)
        .map_err(|error| TaskStoreError(format!("the task could not be encoded: {error}")))
}
