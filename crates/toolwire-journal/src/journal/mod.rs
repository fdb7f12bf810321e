//! [`Journal`]: opening a journal and what it holds.

mod audit;
mod call;
mod call_options;
mod dispatch;
mod engine;
mod invoke;
mod options;
mod record;
mod replays;
mod runs;
mod spent;
mod suspend;
mod tasks;

use std::fmt;
#[cfg(feature = "sqlite")]
use std::path::Path;
use std::sync::Arc;

use toolwire::policy::ApprovalKey;

pub use audit::AuditQuery;
pub use dispatch::{JournaledDispatch, JournaledDispatchFuture};
pub use invoke::{JournaledCall, JournaledFuture};
pub use options::JournalOptions;
pub use record::{CallRecord, CallState, Resolution};
pub use runs::{PausedRun, RunRequest};
pub use suspend::{PendingFilter, Suspension};

use engine::Engine;

use crate::error::{JournalError, JournalErrorKind};
#[cfg(feature = "postgres")]
use crate::store::PostgresStore;
#[cfg(feature = "sqlite")]
use crate::store::{SqliteSettings, SqliteStore};

/// A durable journal of tool calls: each call id runs at most once, suspended calls survive
/// restarts, and every receipt is kept.
///
/// Cloning it is a reference-count bump; clones share the connections. See the
/// [crate docs](crate) for what it guarantees.
#[derive(Clone)]
pub struct Journal {
    engine: Arc<Engine>,
}

impl Journal {
    /// Opens the journal at `url`: `sqlite:PATH` (or a plain file path) for an SQLite file,
    /// made on first use (feature `sqlite`, the default), or `postgres://...` for a PostgreSQL
    /// database (feature `postgres`). The schema is made or brought up to date.
    ///
    /// A PostgreSQL URL takes the connection parameters of libpq's, among them `sslmode`
    /// (`disable`, `allow`, `prefer` the default, `require`, `verify-ca`, `verify-full`) and
    /// `sslrootcert` (a PEM file of the certificate authorities to trust, for `verify-ca`
    /// and `verify-full`; the system's trusted roots otherwise). TLS is rustls, with `ring`:
    /// `postgres://journal:secret@db.example.com/journal?sslmode=verify-full` is what a
    /// managed PostgreSQL service asks for.
    ///
    /// # Errors
    ///
    /// A file that is not a journal ([`NotAJournal`](JournalErrorKind::NotAJournal)), a
    /// journal of a newer schema ([`NewerSchema`](JournalErrorKind::NewerSchema)), or a
    /// database that cannot be reached, refuses the TLS that `sslmode` asks for, is locked or
    /// is full. A URL of a backend this build left out
    /// ([`Unavailable`](JournalErrorKind::Unavailable)) names the feature to enable.
    ///
    /// # Cancel safety
    ///
    /// Dropping it part way may leave the database made and its schema brought up to date (each
    /// migration commits on its own), which a later open takes as it is; nothing else is left.
    pub async fn open(url: &str) -> Result<Self, JournalError> {
        Self::open_with(url, JournalOptions::default()).await
    }

    /// [`open`](Self::open), with settings.
    ///
    /// # Errors
    ///
    /// As [`open`](Self::open).
    ///
    /// # Cancel safety
    ///
    /// Dropping it part way may leave the database made and its schema brought up to date (each
    /// migration commits on its own), which a later open takes as it is; nothing else is left.
    pub async fn open_with(url: &str, options: JournalOptions) -> Result<Self, JournalError> {
        if url.starts_with("postgres://") || url.starts_with("postgresql://") {
            return open_postgres(url, options).await;
        }
        let path =
            url.strip_prefix("sqlite://").or_else(|| url.strip_prefix("sqlite:")).unwrap_or(url);
        if path.is_empty() || path.contains("://") {
            let text = format!(
                "cannot open a journal at {url:?}: expected sqlite:PATH, a file path or postgres://"
            );
            return Err(JournalError::new(JournalErrorKind::Unavailable, text));
        }
        open_sqlite(path, options).await
    }

    /// Opens, or makes, the SQLite journal in the file at `path`.
    ///
    /// # Errors
    ///
    /// As [`open`](Self::open).
    ///
    /// # Cancel safety
    ///
    /// Dropping it part way may leave the database made and its schema brought up to date (each
    /// migration commits on its own), which a later open takes as it is; nothing else is left.
    #[cfg(feature = "sqlite")]
    pub async fn sqlite_with(
        path: impl AsRef<Path>,
        options: JournalOptions,
    ) -> Result<Self, JournalError> {
        let settings = SqliteSettings {
            busy_timeout: options.busy_timeout,
            max_pages: options.max_size.map(|bytes| (bytes / 4096).max(8)),
            max_batch: options.max_batch,
        };
        let (store, key) = SqliteStore::open(path.as_ref(), &settings).await?;
        Ok(journal_on(Engine::new(Box::new(store), key, options)))
    }

    /// The approval key every process sharing this journal must seal its registry with
    /// ([`RegistryBuilder::approval_key`](toolwire::RegistryBuilder::approval_key)), so that
    /// one process can resume the approvals another asked for. The first process to open the
    /// journal makes it at random; it is stored in the journal, so whoever can read the
    /// journal can mint approvals: guard the journal as you would the key.
    pub fn approval_key(&self) -> ApprovalKey {
        self.engine.key
    }

    /// Waits for the writes under way, then closes every connection. Calls after it fail as
    /// [`Unavailable`](JournalErrorKind::Unavailable).
    ///
    /// # Cancel safety
    ///
    /// Dropping it part way leaves the journal closing; nothing committed is lost.
    pub async fn close(&self) {
        self.engine.close().await;
    }
}

/// The journal that runs on `engine`.
fn journal_on(engine: Engine) -> Journal {
    Journal { engine: Arc::new(engine) }
}

/// Opens the SQLite journal at `path`, a URL's path.
#[cfg(feature = "sqlite")]
async fn open_sqlite(path: &str, options: JournalOptions) -> Result<Journal, JournalError> {
    Journal::sqlite_with(path, options).await
}

#[cfg(not(feature = "sqlite"))]
async fn open_sqlite(path: &str, _options: JournalOptions) -> Result<Journal, JournalError> {
    Err(without("sqlite", &format!("the sqlite journal {path:?}")))
}

/// Opens the PostgreSQL journal at `url`.
#[cfg(feature = "postgres")]
async fn open_postgres(url: &str, options: JournalOptions) -> Result<Journal, JournalError> {
    let (store, key) = PostgresStore::open(url, options.connections).await?;
    Ok(journal_on(Engine::new(Box::new(store), key, options)))
}

#[cfg(not(feature = "postgres"))]
async fn open_postgres(_url: &str, _options: JournalOptions) -> Result<Journal, JournalError> {
    Err(without("postgres", "a postgres journal"))
}

/// The error for a journal whose backend this build left out.
#[cfg(not(all(feature = "sqlite", feature = "postgres")))]
fn without(feature: &str, journal: &str) -> JournalError {
    let text = format!(
        "cannot open {journal}: toolwire-journal was built without its {feature:?} feature"
    );
    JournalError::new(JournalErrorKind::Unavailable, text)
}

impl fmt::Debug for Journal {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Journal")
            .field("place", &self.engine.place())
            .field("owner", &self.engine.owner)
            .finish_non_exhaustive()
    }
}
