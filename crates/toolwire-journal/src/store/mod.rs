//! Where a journal keeps its records: one trait, [`Store`], with an SQLite and a PostgreSQL
//! backend, over the same operations.
//!
//! Every write is an [`Op`], run inside a transaction by [`ops::run`]; the backends differ in
//! how they batch and commit them. Reads go straight to a pool of connections.

pub(crate) mod ops;
#[cfg(feature = "postgres")]
mod postgres;
pub(crate) mod reads;
mod rows;
pub(crate) mod run_reads;
mod schema;
#[cfg(feature = "sqlite")]
mod sqlite;

use std::fmt;
use std::future::Future;
use std::pin::Pin;
use std::time::{Duration, SystemTime, UNIX_EPOCH};

use sqlx::AnyPool;

pub(crate) use ops::{Op, Reply};
#[cfg(feature = "postgres")]
pub(crate) use postgres::PostgresStore;
pub(crate) use rows::{CallRow, RequestRow};
#[cfg(feature = "sqlite")]
pub(crate) use sqlite::{SqliteSettings, SqliteStore};

use crate::error::JournalError;

/// A boxed future, for the object-safe [`Store`].
pub(crate) type BoxFuture<'a, T> = Pin<Box<dyn Future<Output = T> + Send + 'a>>;

/// The storage behind a journal.
///
/// # Cancel safety
///
/// Dropping a [`write`](Store::write) future does not undo the write: it may still commit.
pub(crate) trait Store: Send + Sync + fmt::Debug {
    /// Runs `op` in a transaction and commits it; the reply comes after the commit.
    fn write(&self, op: Op) -> BoxFuture<'_, Result<Reply, JournalError>>;

    /// The pool that reads go to.
    fn reader(&self) -> &AnyPool;

    /// Where the journal is, for messages: `sqlite journal "/path"`.
    fn place(&self) -> &str;

    /// Waits for pending writes, then closes every connection.
    fn close(&self) -> BoxFuture<'_, ()>;
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
