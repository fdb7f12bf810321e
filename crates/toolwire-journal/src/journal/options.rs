//! [`JournalOptions`]: how a journal is opened and how it runs calls.

use std::time::Duration;

/// Settings of a journal; every one has a default.
///
/// ```
/// use std::time::Duration;
/// use toolwire_journal::JournalOptions;
///
/// let options = JournalOptions::default().lease(Duration::from_secs(10)).busy_timeout(Duration::from_secs(1));
/// assert_eq!(options.lease_duration(), Duration::from_secs(10));
/// ```
#[derive(Debug, Clone)]
pub struct JournalOptions {
    pub(crate) lease: Duration,
    pub(crate) poll: Duration,
    pub(crate) busy_timeout: Duration,
    pub(crate) max_size: Option<u64>,
    pub(crate) max_batch: usize,
    pub(crate) connections: u32,
    pub(crate) run_claim: Duration,
}

impl Default for JournalOptions {
    fn default() -> Self {
        Self {
            lease: Duration::from_secs(30),
            poll: Duration::from_millis(25),
            busy_timeout: Duration::from_secs(5),
            max_size: None,
            max_batch: 512,
            connections: 16,
            run_claim: Duration::from_secs(600),
        }
    }
}

impl JournalOptions {
    /// How long a process owns a call it runs before others may presume it dead (30 s by
    /// default). The owner renews it every third of that while the handler runs, so it
    /// bounds how long a crashed process's calls stay "in progress", not how long a handler
    /// may take.
    pub fn lease(mut self, lease: Duration) -> Self {
        self.lease = lease.max(Duration::from_millis(30));
        self
    }

    /// The lease set with [`lease`](Self::lease).
    pub fn lease_duration(&self) -> Duration {
        self.lease
    }

    /// How often a call waiting on one that runs elsewhere looks again (25 ms by default).
    pub fn poll_interval(mut self, poll: Duration) -> Self {
        self.poll = poll.max(Duration::from_millis(1));
        self
    }

    /// How long an SQLite write waits for a lock another process holds before it fails as
    /// [`Locked`](crate::JournalErrorKind::Locked) (5 s by default).
    pub fn busy_timeout(mut self, timeout: Duration) -> Self {
        self.busy_timeout = timeout;
        self
    }

    /// Caps an SQLite journal's file at about `bytes`: a write past it fails as
    /// [`DiskFull`](crate::JournalErrorKind::DiskFull), as a full disk would. No cap by
    /// default.
    pub fn max_size(mut self, bytes: u64) -> Self {
        self.max_size = Some(bytes);
        self
    }

    /// The most writes an SQLite journal commits together in one transaction (512 by
    /// default); 1 commits each write on its own.
    pub fn group_commit(mut self, max_writes: usize) -> Self {
        self.max_batch = max_writes.max(1);
        self
    }

    /// The most connections a PostgreSQL journal opens (16 by default).
    pub fn connections(mut self, connections: u32) -> Self {
        self.connections = connections.max(2);
        self
    }

    /// How long a resume that [claimed](crate::Journal::claim_run) a paused agent run holds
    /// it (10 minutes by default): a resume that dies leaves the run claimed this long,
    /// after which another may take it. The resume saves or removes the run when it ends,
    /// which lets go of the claim at once.
    ///
    /// It is capped at 30 days.
    pub fn run_claim(mut self, claim: Duration) -> Self {
        self.run_claim = claim.min(Duration::from_secs(30 * 24 * 3600));
        self
    }
}
