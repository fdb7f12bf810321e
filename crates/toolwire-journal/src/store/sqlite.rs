//! The SQLite backend: one file in WAL mode, one writer that commits the writes of concurrent
//! calls together (group commit), and a pool of readers.

use std::path::Path;
use std::time::Duration;

use sqlx::any::AnyPoolOptions;
use sqlx::{AnyConnection, AnyPool, Connection};
use tokio::sync::{Mutex, mpsc, oneshot};
use toolwire::policy::ApprovalKey;

use super::schema::{self, Flavor};
use super::{BoxFuture, Op, Reply, Store, install_drivers, ops};
use crate::error::{JournalError, JournalErrorKind};

/// How an SQLite journal is opened.
#[derive(Debug, Clone)]
pub(crate) struct SqliteSettings {
    pub(crate) busy_timeout: Duration,
    pub(crate) max_pages: Option<u64>,
    pub(crate) max_batch: usize,
}

/// A write waiting for the writer, and where its reply goes.
struct Job {
    op: Op,
    reply: ReplyTo,
}

/// An SQLite journal.
#[derive(Debug)]
pub(crate) struct SqliteStore {
    jobs: std::sync::Mutex<Option<mpsc::UnboundedSender<Job>>>,
    writer: Mutex<Option<tokio::task::JoinHandle<()>>>,
    reader: AnyPool,
    place: String,
}

impl SqliteStore {
    /// Opens the journal at `path`, making it if it is missing.
    pub(crate) async fn open(path: &Path, settings: &SqliteSettings) -> Result<(Self, ApprovalKey), JournalError> {
        install_drivers();
        let place = format!("sqlite journal {:?}", path.display().to_string());
        let url = format!("sqlite://{}?mode=rwc", path.display());
        let mut conn = AnyConnection::connect(&url).await.map_err(|e| JournalError::database("open the journal", &place, e))?;
        pragmas(&mut conn, settings, true).await.map_err(|e| JournalError::database("open the journal", &place, e))?;
        schema::migrate(&mut conn, Flavor::Sqlite, &place).await?;
        let key = schema::approval_key(&mut conn, &place).await?;
        let reader = reader_pool(&url, settings).await.map_err(|e| JournalError::database("open the journal", &place, e))?;
        let (tx, rx) = mpsc::unbounded_channel();
        let writer = tokio::spawn(write_loop(conn, rx, place.clone(), settings.max_batch.max(1)));
        let store = Self { jobs: std::sync::Mutex::new(Some(tx)), writer: Mutex::new(Some(writer)), reader, place };
        Ok((store, key))
    }
}

/// Sets the connection up: WAL, full sync on commit, the busy timeout, the size cap.
async fn pragmas(conn: &mut AnyConnection, settings: &SqliteSettings, writer: bool) -> Result<(), sqlx::Error> {
    let busy = settings.busy_timeout.as_millis().min(i32::MAX as u128);
    sqlx::query(&format!("PRAGMA busy_timeout = {busy}")).execute(&mut *conn).await?;
    if writer {
        sqlx::query("PRAGMA journal_mode = WAL").execute(&mut *conn).await?;
    }
    sqlx::query("PRAGMA synchronous = FULL").execute(&mut *conn).await?;
    if let Some(pages) = settings.max_pages {
        sqlx::query(&format!("PRAGMA max_page_count = {pages}")).execute(&mut *conn).await?;
    }
    Ok(())
}

async fn reader_pool(url: &str, settings: &SqliteSettings) -> Result<AnyPool, sqlx::Error> {
    let settings = settings.clone();
    AnyPoolOptions::new()
        .max_connections(4)
        .after_connect(move |conn, _| {
            let settings = settings.clone();
            Box::pin(async move { pragmas(conn, &settings, false).await })
        })
        .connect(url)
        .await
}

/// The writer: takes every write waiting, runs them in one transaction, commits once.
async fn write_loop(mut conn: AnyConnection, mut jobs: mpsc::UnboundedReceiver<Job>, place: String, max_batch: usize) {
    let mut batch = Vec::with_capacity(max_batch);
    while let Some(first) = jobs.recv().await {
        batch.push(first);
        while batch.len() < max_batch {
            match jobs.try_recv() {
                Ok(job) => batch.push(job),
                Err(_) => break,
            }
        }
        commit_batch(&mut conn, &mut batch, &place).await;
    }
    let _ = conn.close().await;
}

/// Runs `batch` in one transaction, each write in a savepoint of its own so that one failing
/// write does not undo the others; every reply goes out after the commit.
async fn commit_batch(conn: &mut AnyConnection, batch: &mut Vec<Job>, place: &str) {
    if let Err(e) = sqlx::query("BEGIN IMMEDIATE").execute(&mut *conn).await {
        let error = JournalError::database("begin a write", place, e);
        return fail_all(batch.drain(..).map(|job| job.reply), &error);
    }
    let mut done = Vec::with_capacity(batch.len());
    for job in batch.drain(..) {
        let result = in_savepoint(conn, job.op, place).await;
        done.push((job.reply, result));
    }
    match sqlx::query("COMMIT").execute(&mut *conn).await {
        Ok(_) => {
            for (reply, result) in done {
                let _ = reply.send(result);
            }
        }
        Err(e) => {
            let _ = sqlx::query("ROLLBACK").execute(&mut *conn).await;
            // A write that failed may have ended the transaction (SQLite rolls back on a full
            // disk): its error is the one that explains why nothing committed.
            let cause = done.iter().find_map(|(_, result)| result.as_ref().err().map(JournalError::duplicate));
            let error = cause.unwrap_or_else(|| JournalError::database("commit a write", place, e));
            fail_all(done.into_iter().map(|(reply, _)| reply), &error);
        }
    }
}

async fn in_savepoint(conn: &mut AnyConnection, op: Op, place: &str) -> Result<Reply, JournalError> {
    let savepoint = |sql: &'static str| sqlx::query(sql);
    savepoint("SAVEPOINT op").execute(&mut *conn).await.map_err(|e| JournalError::database("begin a write", place, e))?;
    let result = ops::run(conn, op, place).await;
    if result.is_err() {
        // The write's own error says what went wrong, whatever the rollback says.
        let _ = savepoint("ROLLBACK TO op").execute(&mut *conn).await;
        let _ = savepoint("RELEASE op").execute(&mut *conn).await;
        return result;
    }
    savepoint("RELEASE op").execute(&mut *conn).await.map_err(|e| JournalError::database("finish a write", place, e))?;
    result
}

/// The reply of a write.
type ReplyTo = oneshot::Sender<Result<Reply, JournalError>>;

fn fail_all(replies: impl Iterator<Item = ReplyTo>, error: &JournalError) {
    for reply in replies {
        let _ = reply.send(Err(error.duplicate()));
    }
}

impl Store for SqliteStore {
    fn write(&self, op: Op) -> BoxFuture<'_, Result<Reply, JournalError>> {
        Box::pin(async move {
            let (reply, answer) = oneshot::channel();
            let sent = match self.jobs.lock().as_deref() {
                Ok(Some(jobs)) => jobs.send(Job { op, reply }).is_ok(),
                _ => false,
            };
            let stopped = || JournalError::new(JournalErrorKind::Unavailable, format!("{} is closed", self.place));
            if !sent {
                return Err(stopped());
            }
            answer.await.unwrap_or_else(|_| Err(stopped()))
        })
    }

    fn reader(&self) -> &AnyPool {
        &self.reader
    }

    fn place(&self) -> &str {
        &self.place
    }

    fn close(&self) -> BoxFuture<'_, ()> {
        Box::pin(async move {
            if let Ok(mut jobs) = self.jobs.lock() {
                jobs.take();
            }
            if let Some(writer) = self.writer.lock().await.take() {
                let _ = writer.await;
            }
            self.reader.close().await;
        })
    }
}
