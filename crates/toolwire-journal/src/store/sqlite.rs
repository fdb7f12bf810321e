//! The SQLite backend: one file in WAL mode, one writer that commits the writes of concurrent
//! calls together (group commit), and a pool of readers.

use std::collections::HashSet;
use std::path::Path;
use std::time::Duration;

use percent_encoding::{AsciiSet, NON_ALPHANUMERIC, utf8_percent_encode};
use sqlx::any::AnyPoolOptions;
use sqlx::{AnyConnection, AnyPool, Connection};
use tokio::sync::{Mutex, mpsc};
use toolwire::policy::ApprovalKey;

use super::ops::{self, Cx, Grouped};
use super::schema::{self, Flavor};
use super::{BoxFuture, Job, Store, closed, install_drivers};
use crate::error::JournalError;

/// How an SQLite journal is opened.
#[derive(Debug, Clone)]
pub(crate) struct SqliteSettings {
    pub(crate) busy_timeout: Duration,
    pub(crate) max_pages: Option<u64>,
    pub(crate) max_batch: usize,
}

/// An SQLite journal.
#[derive(Debug)]
pub(crate) struct SqliteStore {
    jobs: std::sync::Mutex<Option<mpsc::UnboundedSender<Box<dyn Job>>>>,
    writer: Mutex<Option<tokio::task::JoinHandle<()>>>,
    reader: AnyPool,
    place: String,
}

impl SqliteStore {
    /// Opens the journal at `path`, making it if it is missing.
    pub(crate) async fn open(
        path: &Path,
        settings: &SqliteSettings,
    ) -> Result<(Self, ApprovalKey), JournalError> {
        install_drivers();
        let place = format!("sqlite journal {:?}", path.display().to_string());
        let url = format!("sqlite://{}?mode=rwc", encode_path(path));
        let mut conn = AnyConnection::connect(&url)
            .await
            .map_err(|e| JournalError::database("open the journal", &place, e))?;
        pragmas(&mut conn, settings, true)
            .await
            .map_err(|e| JournalError::database("open the journal", &place, e))?;
        schema::migrate(&mut conn, Flavor::Sqlite, &place).await?;
        let key = schema::approval_key(&mut conn, &place).await?;
        let reader = reader_pool(&url, settings)
            .await
            .map_err(|e| JournalError::database("open the journal", &place, e))?;
        let (tx, rx) = mpsc::unbounded_channel();
        let writer = tokio::spawn(write_loop(conn, rx, place.clone(), settings.max_batch.max(1)));
        let store = Self {
            jobs: std::sync::Mutex::new(Some(tx)),
            writer: Mutex::new(Some(writer)),
            reader,
            place,
        };
        Ok((store, key))
    }
}

/// Every byte but letters, digits and `/._~-` is percent-encoded in a path.
const PATH_BYTES: &AsciiSet =
    &NON_ALPHANUMERIC.remove(b'/').remove(b'.').remove(b'_').remove(b'~').remove(b'-');

/// `path` as the path of a URL, percent-encoded, so that spaces, `?`, `#` and `%` in file
/// names survive.
fn encode_path(path: &Path) -> String {
    utf8_percent_encode(&path.to_string_lossy(), PATH_BYTES).to_string()
}

/// Sets the connection up: WAL, full sync on commit, the busy timeout, the size cap.
///
/// These are PRAGMA statements, not `SqliteConnectOptions`' typed settings, because the
/// journal reaches SQLite through sqlx's `Any` driver (one set of queries for both backends),
/// and that driver is opened from a URL only: it rebuilds the options from the URL and drops
/// every setting a URL cannot carry.
async fn pragmas(
    conn: &mut AnyConnection,
    settings: &SqliteSettings,
    writer: bool,
) -> Result<(), sqlx::Error> {
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
async fn write_loop(
    mut conn: AnyConnection,
    mut jobs: mpsc::UnboundedReceiver<Box<dyn Job>>,
    place: String,
    max_batch: usize,
) {
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

/// Runs `batch` in one transaction and commits once; every reply goes out after the commit.
/// If a write fails, the batch is rolled back and each write runs again in a transaction of
/// its own, so that one failing write does not fail the others.
async fn commit_batch(conn: &mut AnyConnection, batch: &mut Vec<Box<dyn Job>>, place: &str) {
    if batch.len() > 1 {
        match run_together(conn, batch, place).await {
            Ok(()) => {
                for job in batch.drain(..) {
                    job.answer(Ok(()));
                }
                return;
            }
            Err(_) => batch.iter_mut().for_each(|job| job.forget()),
        }
    }
    run_alone(conn, batch.drain(..), place).await;
}

/// Runs `jobs` in one transaction; on any failure, rolls it back. Fresh claims and plain
/// completions go in one statement each; the rest run one by one, in order.
async fn run_together(
    conn: &mut AnyConnection,
    jobs: &mut [Box<dyn Job>],
    place: &str,
) -> Result<(), JournalError> {
    begin(conn, place).await?;
    match run_in_transaction(conn, jobs, place).await {
        Ok(()) => commit(conn, place).await,
        Err(error) => Err(rollback(conn, error).await),
    }
}

async fn run_in_transaction(
    conn: &mut AnyConnection,
    jobs: &mut [Box<dyn Job>],
    place: &str,
) -> Result<(), JournalError> {
    let cx = Cx::new(place);
    let (at, claims): (Vec<usize>, Vec<&ops::Claim>) = grouped(jobs, |write| match write {
        Grouped::Claim(claim) => Some(claim),
        Grouped::Complete(_) => None,
    });
    if claims.len() > 1 {
        let won = ops::bulk::insert_claims(conn, &cx, &claims).await?;
        settle(jobs, &at, &won);
    }
    let (at, plain): (Vec<usize>, Vec<&ops::Completion>) = grouped(jobs, |write| match write {
        Grouped::Complete(done) => Some(done),
        Grouped::Claim(_) => None,
    });
    if plain.len() > 1 {
        let applied = ops::bulk::complete_many(conn, &cx, &plain).await?;
        settle(jobs, &at, &applied);
    }
    for job in jobs.iter_mut().filter(|job| !job.is_settled()) {
        job.run(conn, &cx).await?;
    }
    Ok(())
}

/// The writes of `jobs` that `pick` takes, with their positions.
fn grouped<'a, T>(
    jobs: &'a [Box<dyn Job>],
    pick: impl Fn(Grouped<'a>) -> Option<&'a T>,
) -> (Vec<usize>, Vec<&'a T>) {
    jobs.iter()
        .enumerate()
        .filter_map(|(i, job)| job.grouped().and_then(&pick).map(|write| (i, write)))
        .unzip()
}

/// Settles the jobs at positions `at` after their shared statement: `won` holds the indices
/// (into `at`) of those whose rows it wrote.
fn settle(jobs: &mut [Box<dyn Job>], at: &[usize], won: &HashSet<usize>) {
    for (k, &i) in at.iter().enumerate() {
        if let Some(job) = jobs.get_mut(i) {
            job.settle(won.contains(&k));
        }
    }
}

/// Runs each job in a transaction of its own.
async fn run_alone(
    conn: &mut AnyConnection,
    jobs: impl Iterator<Item = Box<dyn Job>>,
    place: &str,
) {
    let cx = Cx::new(place);
    for mut job in jobs {
        let committed = match begin(conn, place).await {
            Ok(()) => match job.run(conn, &cx).await {
                Ok(()) => commit(conn, place).await,
                Err(error) => Err(rollback(conn, error).await),
            },
            Err(error) => Err(error),
        };
        job.answer(committed);
    }
}

async fn begin(conn: &mut AnyConnection, place: &str) -> Result<(), JournalError> {
    sqlx::query("BEGIN IMMEDIATE")
        .execute(&mut *conn)
        .await
        .map_err(|e| JournalError::database("begin a write", place, e))?;
    Ok(())
}

async fn commit(conn: &mut AnyConnection, place: &str) -> Result<(), JournalError> {
    if let Err(e) = sqlx::query("COMMIT").execute(&mut *conn).await {
        return Err(rollback(conn, JournalError::database("commit a write", place, e)).await);
    }
    Ok(())
}

/// Rolls the transaction back (SQLite may have done so already, on a full disk) and hands
/// `error` on: it says why.
async fn rollback(conn: &mut AnyConnection, error: JournalError) -> JournalError {
    let _ = sqlx::query("ROLLBACK").execute(&mut *conn).await;
    error
}

impl Store for SqliteStore {
    fn submit(&self, job: Box<dyn Job>) -> BoxFuture<'_, ()> {
        let refused = match self.jobs.lock().as_deref() {
            Ok(Some(jobs)) => jobs.send(job).err().map(|unsent| unsent.0),
            _ => Some(job),
        };
        if let Some(job) = refused {
            job.answer(Err(closed(&self.place)));
        }
        Box::pin(std::future::ready(()))
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
