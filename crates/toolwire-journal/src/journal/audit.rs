//! The audit log: every receipt appended, read back by call id, tool, time and failure kind.

use std::time::SystemTime;

use toolwire::{FailureKind, Receipt};

use super::Journal;
use super::call::read_receipt;
use crate::error::JournalError;
use crate::store::millis;
use crate::store::reads::{self, AuditFilter};

/// Which receipts [`Journal::receipts`] reads back: every filter set must hold. At most 1,000
/// by default, in the order they were appended.
///
/// ```
/// use std::time::{Duration, SystemTime};
/// use toolwire::FailureKind;
/// use toolwire_journal::AuditQuery;
///
/// let hour_ago = SystemTime::now() - Duration::from_secs(3600);
/// let query = AuditQuery::new().tool("deploy").since(hour_ago).failure(FailureKind::Denied).limit(50);
/// # let _ = query;
/// ```
#[derive(Debug, Clone)]
pub struct AuditQuery {
    call_id: Option<String>,
    tool: Option<String>,
    since: Option<SystemTime>,
    until: Option<SystemTime>,
    failure: Option<FailureKind>,
    successes: Option<bool>,
    limit: u32,
}

impl Default for AuditQuery {
    fn default() -> Self {
        Self {
            call_id: None,
            tool: None,
            since: None,
            until: None,
            failure: None,
            successes: None,
            limit: 1000,
        }
    }
}

impl AuditQuery {
    /// Every receipt (up to the limit).
    pub fn new() -> Self {
        Self::default()
    }

    /// Only receipts of `call_id`.
    pub fn call_id(mut self, call_id: impl Into<String>) -> Self {
        self.call_id = Some(call_id.into());
        self
    }

    /// Only receipts of `tool`.
    pub fn tool(mut self, tool: impl Into<String>) -> Self {
        self.tool = Some(tool.into());
        self
    }

    /// Only invocations that started at `time` or later (to the millisecond).
    pub fn since(mut self, time: SystemTime) -> Self {
        self.since = Some(time);
        self
    }

    /// Only invocations that started before `time` (to the millisecond).
    pub fn until(mut self, time: SystemTime) -> Self {
        self.until = Some(time);
        self
    }

    /// Only failures of `kind`.
    pub fn failure(mut self, kind: FailureKind) -> Self {
        self.failure = Some(kind);
        self
    }

    /// Only successes (`true`) or only failures (`false`).
    pub fn successes(mut self, successes: bool) -> Self {
        self.successes = Some(successes);
        self
    }

    /// At most `limit` receipts.
    pub fn limit(mut self, limit: u32) -> Self {
        self.limit = limit;
        self
    }
}

impl Journal {
    /// Appends `receipt` to the audit log. Journaled calls append theirs themselves; this is
    /// for the receipts of other calls, such as from a registry's
    /// [`on_receipt`](toolwire::RegistryBuilder::on_receipt) hook.
    ///
    /// # Errors
    ///
    /// A database error: the receipt is then not appended.
    ///
    /// # Cancel safety
    ///
    /// A write: dropping the future does not undo it, and it may still commit: read the state
    /// back to learn whether it did.
    pub async fn append(&self, receipt: &Receipt) -> Result<(), JournalError> {
        self.engine.append(receipt).await
    }

    /// A hook for [`RegistryBuilder::on_receipt`](toolwire::RegistryBuilder::on_receipt) that
    /// appends every receipt of a registry's calls to the audit log, in order, from a task
    /// of its own; for registries whose calls are not journaled (journaled calls append
    /// theirs already). It must be made inside a Tokio runtime. A receipt that cannot be
    /// appended is logged with `tracing` and dropped.
    ///
    /// ```
    /// # #[tokio::main(flavor = "current_thread")] async fn main() -> Result<(), Box<dyn std::error::Error>> {
    /// use serde_json::json;
    /// use toolwire::{Registry, Tool, ToolResult};
    /// use toolwire_journal::{AuditQuery, Journal};
    ///
    /// let dir = tempfile::tempdir()?;
    /// let journal = Journal::open(&format!("sqlite:{}", dir.path().join("j.db").display())).await?;
    /// let ping = Tool::define("ping").execute_sync(|_, _| ToolResult::ok(json!({}), "pong")).build()?;
    /// let registry = Registry::builder().register(ping).on_receipt(journal.audit_hook()).seal()?;
    /// registry.invoke("ping", json!({})).call_id("p1").await;
    /// # for _ in 0..200 { if !journal.receipts(&AuditQuery::new()).await?.is_empty() { break } tokio::time::sleep(std::time::Duration::from_millis(5)).await }
    /// assert_eq!(journal.receipts(&AuditQuery::new().call_id("p1")).await?.len(), 1);
    /// # Ok(()) }
    /// ```
    pub fn audit_hook(&self) -> impl Fn(&Receipt) + Send + Sync + 'static {
        let (tx, mut rx) = tokio::sync::mpsc::unbounded_channel::<Receipt>();
        let journal = self.clone();
        tokio::spawn(async move {
            while let Some(receipt) = rx.recv().await {
                if let Err(error) = journal.append(&receipt).await {
                    tracing::warn!(%error, tool = &*receipt.tool, "cannot append a receipt to the audit log");
                }
            }
        });
        move |receipt: &Receipt| {
            let _ = tx.send(receipt.clone());
        }
    }

    /// The receipts in the audit log that match `query`, in the order they were appended.
    ///
    /// # Errors
    ///
    /// A database error, or a stored receipt that does not decode.
    ///
    /// # Cancel safety
    ///
    /// Safe: it only reads, and dropping it changes nothing.
    pub async fn receipts(&self, query: &AuditQuery) -> Result<Vec<Receipt>, JournalError> {
        let filter = AuditFilter {
            call_id: query.call_id.as_deref(),
            tool: query.tool.as_deref(),
            since: query.since.map(millis),
            until: query.until.map(millis),
            failure: query.failure.map(FailureKind::as_str),
            success: query.successes,
            limit: i64::from(query.limit),
        };
        let rows = reads::receipts(self.engine.reader(), self.engine.place(), &filter).await?;
        rows.iter().map(|json| read_receipt(json)).collect()
    }
}
