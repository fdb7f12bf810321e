//! Where a journal keeps its records: one trait, [`Store`], with an SQLite and a PostgreSQL
//! backend, over the same operations.
//!
//! Every write is a type of its own ([`ops::Write`]) whose output is what that write answers;
//! [`write`] hands it to the store as a [`Job`] that carries its typed reply. The backends
//! differ in how they batch and commit jobs. Reads go straight to a pool of connections.

mod job;
pub(crate) mod ops;
#[cfg(feature = "postgres")]
mod postgres;
pub(crate) mod reads;
mod rows;
pub(crate) mod run_reads;
mod schema;
#[cfg(feature = "sqlite")]
mod sqlite;
pub(crate) mod status;

use std::fmt;
use std::future::Future;
use std::pin::Pin;
use std::time::{Duration, SystemTime, UNIX_EPOCH};

use sqlx::AnyPool;
use tokio::sync::oneshot;

pub(crate) use job::Job;
use job::Pending;
use ops::Write;
#[cfg(feature = "postgres")]
pub(crate) use postgres::PostgresStore;
pub(crate) use rows::{CallRow, RequestRow};
#[cfg(feature = "sqlite")]
pub(crate) use sqlite::{SqliteSettings, SqliteStore};

use crate::error::{JournalError, JournalErrorKind};

/// A boxed future, for the object-safe [`Store`].
pub(crate) type BoxFuture<'a, T> = Pin<Box<dyn Future<Output = T> + Send + 'a>>;

/// The storage behind a journal.
///
/// # Cancel safety
///
/// Dropping a [`submit`](Store::submit) future, or the [`write`] that awaits its job's
/// reply, does not undo the write: it may still commit.
pub(crate) trait Store: Send + Sync + fmt::Debug {
    /// Runs `job` in a transaction, or in a group commit, and commits it; the job's reply
    /// goes out after the commit (or with the error that stopped it).
    fn submit(&self, job: Box<dyn Job>) -> BoxFuture<'_, ()>;

    /// The pool that reads go to.
    fn reader(&self) -> &AnyPool;

    /// Where the journal is, for messages: `sqlite journal "/path"`.
    fn place(&self) -> &str;

    /// Waits for pending writes, then closes every connection.
    fn close(&self) -> BoxFuture<'_, ()>;
}

/// Runs `write` on `store`, committed; its output comes after the commit.
pub(crate) async fn write<W: Write>(
    store: &dyn Store,
    write: W,
) -> Result<W::Output, JournalError> {
    let (reply, output) = oneshot::channel();
    store.submit(Box::new(Pending::new(write, reply))).await;
    output.await.unwrap_or_else(|_| Err(closed(store.place())))
}

/// The error for a write to a journal that is closed: its writer is gone.
pub(crate) fn closed(place: &str) -> JournalError {
    JournalError::new(JournalErrorKind::Unavailable, format!("{place} is closed"))
}

/// Milliseconds since the Unix epoch, the unit of every time the journal stores.
pub(crate) fn millis(time: SystemTime) -> i64 {
    millis_of(time.duration_since(UNIX_EPOCH).unwrap_or_default())
}

/// `duration` in the journal's unit, saturating.
pub(crate) fn millis_of(duration: Duration) -> i64 {
    i64::try_from(duration.as_millis()).unwrap_or(i64::MAX)
}

/// A stored time `millis`, in RFC 3339 for messages. humantime writes years up to 9999 only
/// (past that its `Display` fails, and `format!` panics), and a row may hold anything: a
/// later time is written as a count of milliseconds.
pub(crate) fn shown_time(millis: i64) -> String {
    const LAST: i64 = 253_402_300_799_999;
    if millis > LAST {
        return format!("{millis} ms after the Unix epoch");
    }
    humantime::format_rfc3339_millis(time_of(millis)).to_string()
}

/// The time `millis` after the Unix epoch; negative counts as the epoch.
pub(crate) fn time_of(millis: i64) -> SystemTime {
    UNIX_EPOCH + Duration::from_millis(u64::try_from(millis).unwrap_or(0))
}

/// Now, in the journal's unit.
pub(crate) fn now_millis() -> i64 {
    millis(SystemTime::now())
}

/// Makes the `Any` driver know SQLite and PostgreSQL, once per process.
pub(crate) fn install_drivers() {
    static ONCE: std::sync::Once = std::sync::Once::new();
    ONCE.call_once(sqlx::any::install_default_drivers);
}
