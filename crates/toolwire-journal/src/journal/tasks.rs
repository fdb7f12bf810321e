//! The journal as a [`TaskStore`]: tasks that every process sharing the journal sees, and
//! that outlive the process that started them.

use toolwire::tasks::{TaskFuture, TaskRecord, TaskState, TaskStore, TaskStoreError};

use super::Journal;
use crate::store::ops::{CreateTask, UpdateTask};
use crate::store::{millis, now_millis, reads};

/// How many live tasks [`Journal::waiting_tasks`] reads at most.
const MAX_LISTED: i64 = 10_000;

impl Journal {
    /// The tasks that wait for an answer to their question (an MCP client's call that asked
    /// for input, or for an approval, in a task), oldest first.
    ///
    /// # Errors
    ///
    /// A [`JournalError`](crate::JournalError) when the journal cannot be read.
    ///
    /// # Cancel safety
    ///
    /// It only reads: dropping the future leaves the journal as it was.
    pub async fn waiting_tasks(&self) -> Result<Vec<TaskRecord>, crate::JournalError> {
        let engine = &self.engine;
        let rows = reads::live_tasks(engine.reader(), engine.place(), now_millis(), MAX_LISTED);
        let mut waiting = Vec::new();
        for (text, version) in rows.await? {
            let Ok(mut record) = serde_json::from_str::<TaskRecord>(&text) else { continue };
            if matches!(record.state, TaskState::InputRequired { .. })
                && record.host_answer.is_none()
            {
                record.version = u64::try_from(version).unwrap_or_default();
                waiting.push(record);
            }
        }
        waiting.sort_by_key(|record| record.created_at);
        Ok(waiting)
    }

    /// Answers the question `answer` names (by its request id) of a waiting task, as the
    /// host: the server serving the task resumes its call with it at the client's next
    /// `tasks/get`. The task's id, or `None` when no waiting task asked that question.
    ///
    /// # Errors
    ///
    /// A [`JournalError`](crate::JournalError) when the journal cannot be read or written.
    ///
    /// # Cancel safety
    ///
    /// The answer is written in one compare-and-set of the task's record: dropping the
    /// future before that write leaves the task unanswered, and after it, answered. Nothing
    /// is half written; answering again after a drop is safe (a second answer to a question
    /// already answered finds no waiting task, and says so with `None`).
    pub async fn answer_task(
        &self,
        answer: &toolwire::Answer,
    ) -> Result<Option<String>, crate::JournalError> {
        for _ in 0..8 {
            let asked = self.waiting_tasks().await?.into_iter().find(|record| {
                matches!(&record.state, TaskState::InputRequired { request } if request.id == answer.id)
            });
            let Some(mut record) = asked else { return Ok(None) };
            record.host_answer = Some(answer.clone());
            record.updated_at = std::time::SystemTime::now();
            let id = record.id.clone();
            if self.write_task(&record).await? {
                return Ok(Some(id));
            }
        }
        Ok(None)
    }

    /// Writes `record` if its stored version is still its own: the compare-and-set.
    async fn write_task(&self, record: &TaskRecord) -> Result<bool, crate::JournalError> {
        let Ok(version) = i64::try_from(record.version) else { return Ok(false) };
        let record_text = serde_json::to_string(record)
            .map_err(|error| crate::JournalError::corrupt("task to write", error))?;
        let write = UpdateTask {
            task_id: record.id.clone(),
            version,
            record: record_text,
            expires_at: millis(record.expires_at),
            now: now_millis(),
        };
        self.engine.write(write).await
    }
}

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
            journal.write_task(&record).await.map_err(|error| TaskStoreError(error.to_string()))
        })
    }
}

fn encode(record: &TaskRecord) -> Result<String, TaskStoreError> {
    serde_json::to_string(record)
        .map_err(|error| TaskStoreError(format!("the task could not be encoded: {error}")))
}
