//! [`Engine`]: what a [`Journal`](super::Journal) runs on (its store, its name in leases, its
//! settings) and the steps every journaled call takes through it: the claim before the
//! handler, the lease while it runs, the record after it.

use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};

use sqlx::AnyPool;
use toolwire::Receipt;
use toolwire::policy::ApprovalKey;

use super::call::{completion, read_receipt};
use super::options::JournalOptions;
use super::replays::Replays;
use crate::error::JournalError;
use crate::store::ops::{Append, AuditRow, Claim, Renew, Write};
use crate::store::{self, Store, millis_of, now_millis, reads};

/// The engine behind a journal and its clones.
pub(super) struct Engine {
    store: Box<dyn Store>,
    pub(super) key: ApprovalKey,
    /// This instance's name in leases: unique per open journal.
    pub(super) owner: String,
    pub(super) options: JournalOptions,
    /// Receipts of completed calls, which never change, for fast replays.
    replays: Replays,
    /// Claims made so far, to make each claim's owner unique.
    claims: AtomicU64,
}

impl Engine {
    /// The engine of a journal kept in `store`, whose approval key is `key`.
    pub(super) fn new(store: Box<dyn Store>, key: ApprovalKey, options: JournalOptions) -> Self {
        let owner = format!("{}-{:016x}", std::process::id(), fastrand::u64(..));
        let (replays, claims) = (Replays::default(), AtomicU64::new(0));
        Self { store, key, owner, options, replays, claims }
    }

    /// Runs `write`, committed; its output comes after the commit.
    pub(super) async fn write<W: Write>(&self, write: W) -> Result<W::Output, JournalError> {
        store::write(&*self.store, write).await
    }

    /// The pool that reads go to.
    pub(super) fn reader(&self) -> &AnyPool {
        self.store.reader()
    }

    /// Where the journal is, for messages.
    pub(super) fn place(&self) -> &str {
        self.store.place()
    }

    /// Waits for the writes under way, then closes every connection.
    pub(super) async fn close(&self) {
        self.store.close().await;
    }

    /// When a lease taken at `now` lapses.
    pub(super) fn lease_from(&self, now: i64) -> i64 {
        now.saturating_add(millis_of(self.options.lease))
    }

    /// A claim of `call_id` by this journal, with a fresh lease.
    pub(super) fn new_claim(
        &self,
        call_id: &str,
        tool: &str,
        digest: String,
        arguments: String,
        idempotent: bool,
    ) -> Claim {
        let now = now_millis();
        // Unique per claim: a batch of claims tells its winners by owner.
        let owner = format!("{}-{}", self.owner, self.claims.fetch_add(1, Ordering::Relaxed));
        Claim {
            call_id: call_id.to_owned(),
            tool: tool.to_owned(),
            digest,
            arguments,
            owner,
            now,
            lease_until: self.lease_from(now),
            idempotent,
        }
    }

    /// The stored receipt of `call_id`, if it completed as the call with `digest`; any other
    /// case is the claim's to judge. A completed call never changes, so its receipt is kept
    /// in memory too.
    pub(super) async fn completed(
        &self,
        call_id: &str,
        digest: &str,
    ) -> Result<Option<Receipt>, JournalError> {
        if let Some(hit) = self.replays.get(call_id, digest) {
            return Ok(Some(hit));
        }
        let row = reads::completed(self.reader(), self.place(), call_id).await?;
        let Some((stored, json)) = row.filter(|(stored, _)| stored == digest) else {
            return Ok(None);
        };
        let receipt = read_receipt(&json)?;
        self.replays.put(call_id, stored, &receipt);
        Ok(Some(receipt))
    }

    /// Renews the lease of `call_id`'s attempt until the returned guard is dropped.
    pub(super) fn hold_lease(self: &Arc<Self>, call_id: &str, attempt: i64) -> LeaseGuard {
        let engine = Arc::clone(self);
        let call_id = call_id.to_owned();
        let every = self.options.lease / 3;
        let task = tokio::spawn(async move {
            loop {
                tokio::time::sleep(every).await;
                let until = engine.lease_from(now_millis());
                match engine.write(Renew { call_id: call_id.clone(), attempt, until }).await {
                    Ok(true) => {}
                    Ok(false) => return,
                    Err(error) => {
                        tracing::warn!(call_id, %error, "cannot renew a journaled call's lease")
                    }
                }
            }
        });
        LeaseGuard(task)
    }

    /// Records `receipt` as the outcome of `call_id`'s `attempt`; `resumed` names the request
    /// the run answered.
    pub(super) async fn complete(
        &self,
        call_id: &str,
        digest: &str,
        attempt: i64,
        receipt: Receipt,
        resumed: Option<String>,
    ) -> Result<Receipt, JournalError> {
        let done = match completion(call_id, attempt, &receipt, resumed) {
            Ok(done) => done,
            Err(error) => return Err(error.with_receipt(receipt)),
        };
        let finished = done.pending.is_none();
        match self.write(done).await {
            Ok(true) => {
                if finished {
                    self.replays.put(call_id, digest.to_owned(), &receipt);
                }
                Ok(receipt)
            }
            Ok(false) => {
                tracing::warn!(
                    call_id,
                    "a journaled call completed after another runner took it over"
                );
                Ok(receipt)
            }
            Err(error) => Err(error.with_receipt(receipt)),
        }
    }

    /// Appends `receipt` to the audit log.
    pub(super) async fn append(&self, receipt: &Receipt) -> Result<(), JournalError> {
        self.write(Append(AuditRow::of(receipt)?)).await
    }

    /// Appends `receipt`, of a call the journal did not run, and hands it back; when it
    /// cannot be appended, the error carries it.
    pub(super) async fn audited(&self, receipt: Receipt) -> Result<Receipt, JournalError> {
        match self.append(&receipt).await {
            Ok(()) => Ok(receipt),
            Err(error) => Err(error.with_receipt(receipt)),
        }
    }
}

/// Stops renewing a lease when dropped.
#[derive(Debug)]
pub(super) struct LeaseGuard(tokio::task::JoinHandle<()>);

impl Drop for LeaseGuard {
    fn drop(&mut self) {
        self.0.abort();
    }
}
