//! The journal as a registry's [`ApprovalStore`]: an approval spent by any process sharing
//! the journal is spent for all of them, and stays spent across restarts.

use toolwire::policy::{ApprovalStore, SpendError, SpendFuture, SpentApproval};

use super::Journal;
use crate::store::ops::Spend;
use crate::store::{millis, now_millis};

impl Journal {
    /// Records `approval` as spent: `Ok(true)` the first time, `Ok(false)` when any process
    /// sharing the journal spent it before. Rows of lapsed approvals are dropped as it goes.
    ///
    /// A registry sealed with the journal as its
    /// [`approval_store`](toolwire::RegistryBuilder::approval_store) calls this for every
    /// answer that starts a call; hosts rarely need it directly.
    ///
    /// # Errors
    ///
    /// A [`JournalError`](crate::JournalError) when the journal cannot be written.
    ///
    /// # Cancel safety
    ///
    /// Dropping the future does not undo the write: the approval may still be recorded as
    /// spent, and then no call runs with it. That fails closed.
    pub async fn spend_approval(
        &self,
        approval: &SpentApproval,
    ) -> Result<bool, crate::JournalError> {
        let spend = Spend {
            approval_id: approval.id.clone(),
            digest: approval.digest.clone(),
            expires_at: millis(approval.expires_at),
            now: now_millis(),
        };
        self.engine.write(spend).await
    }
}

/// Single use across every process sharing the journal. Seal each process's registry with
/// the journal's key and the journal as its store:
///
/// ```
/// # #[tokio::main(flavor = "current_thread")] async fn main() -> Result<(), Box<dyn std::error::Error>> {
/// use toolwire::{Registry, Tool, ToolResult};
/// use toolwire_journal::Journal;
///
/// let dir = tempfile::tempdir()?;
/// let journal = Journal::open(&format!("sqlite:{}", dir.path().join("calls.db").display())).await?;
/// let deploy = Tool::define("deploy")
///     .needs_approval(true)
///     .execute_sync(|args, _| ToolResult::ok(args, "deployed"))
///     .build()?;
/// let registry = Registry::builder()
///     .register(deploy)
///     .approval_key(journal.approval_key())
///     .approval_store(journal.clone())
///     .seal()?;
/// # drop(registry); Ok(()) }
/// ```
impl ApprovalStore for Journal {
    fn spend(&self, approval: SpentApproval) -> SpendFuture {
        let journal = self.clone();
        Box::pin(async move {
            match journal.spend_approval(&approval).await {
                Ok(true) => Ok(()),
                Ok(false) => Err(SpendError::AlreadySpent),
                Err(error) => Err(SpendError::Store(error.to_string())),
            }
        })
    }
}
