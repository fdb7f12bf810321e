//! Journaling the calls of a whole model turn at once.

use std::future::IntoFuture;

use toolwire::{Receipt, Registry, ToolCall};

use super::Journal;
use crate::error::{JournalError, JournalErrorKind};

impl Journal {
    /// Runs every call of a model turn as a journaled call, concurrently, and returns their
    /// outcomes in call order. Calls that suspend are all stored, and
    /// [`pending`](Self::pending) lists each; concurrent SQLite writes share commits.
    ///
    /// A call whose arguments could not be read (see [`ToolCall::malformed`]) is run through
    /// the registry unjournaled, which fails it before anything runs; its receipt goes to the
    /// audit log.
    ///
    /// # Cancel safety
    ///
    /// The calls run on spawned tasks: dropping the future does not stop those that started,
    /// and each still records its outcome.
    pub async fn dispatch(
        &self,
        registry: &Registry,
        calls: Vec<ToolCall>,
    ) -> Vec<Result<Receipt, JournalError>> {
        let mut tasks = Vec::with_capacity(calls.len());
        for call in calls {
            let ToolCall { call_id, tool, arguments, malformed } = call;
            let task = match malformed {
                None => tokio::spawn(
                    self.invoke(registry, &tool, arguments).call_id(call_id).into_future(),
                ),
                Some(why) => {
                    let rejected = registry.call(ToolCall::malformed(call_id, tool, why));
                    let journal = self.clone();
                    tokio::spawn(async move { journal.audited(rejected.await).await })
                }
            };
            tasks.push(task);
        }
        let mut outcomes = Vec::with_capacity(tasks.len());
        for task in tasks {
            outcomes.push(task.await.unwrap_or_else(|e| {
                Err(JournalError::new(
                    JournalErrorKind::Database,
                    format!("a journaled call's task failed: {e}"),
                ))
            }));
        }
        outcomes
    }
}
