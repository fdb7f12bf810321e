//! The SQLite backend: one file in WAL mode, one writer that commits the writes of concurrent
//! calls together (group commit), and a pool of readers.

use std::path::Path;
use std::time::Duration;

use percent_encoding::{AsciiSet, NON_ALPHANUMERIC, utf8_percent_encode};
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
    reply: oneshot::Sender<Result<Reply, JournalError>>,
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
    mut jobs: mpsc::UnboundedReceiver<Job>,
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
async fn commit_batch(conn: &mut AnyConnection, batch: &mut Vec<Job>, place: &str) {
    if batch.len() == 1 {
        return run_alone(conn, batch.drain(..), place).await;
    }
    let ops: Vec<&Op> = batch.iter().map(|job| &job.op).collect();
    match run_together(conn, &ops, place).await {
        Ok(replies) => {
            for (job, reply) in batch.drain(..).zip(replies) {
                let _ = job.reply.send(Ok(reply));
            }
        }
        Err(_) => run_alone(conn, batch.drain(..), place).await,
    }
}

/// Runs `ops` in one transaction; on any failure, rolls it back. Fresh claims and plain
/// completions go in one statement each; the rest run one by one, in order.
async fn run_together(
    conn: &mut AnyConnection,
    ops: &[&Op],
    place: &str,
) -> Result<Vec<Reply>, JournalError> {
    begin(conn, place).await?;
    match run_in_transaction(conn, ops, place).await {
        Ok(replies) => commit(conn, place).await.map(|()| replies),
        Err(error) => Err(rollback(conn, error).await),
    }
}

async fn run_in_transaction(
    conn: &mut AnyConnection,
    ops: &[&Op],
    place: &str,
) -> Result<Vec<Reply>, JournalError> {
    let cx = ops::Cx::new(place);
    let mut replies: Vec<Option<Reply>> = ops.iter().map(|_| None).collect();
    let (claims, at): (Vec<&ops::Claim>, Vec<usize>) = ops
        .iter()
        .enumerate()
        .filter_map(|(i, op)| match op {
            Op::Claim(claim) => Some((claim, i)),
            _ => None,
        })
        .unzip();
    if claims.len() > 1 {
        for won in ops::bulk::insert_claims(conn, &cx, &claims).await? {
            replies[at[won]] = Some(Reply::Claimed(ops::Claimed::Run { attempt: 1 }));
        }
    }
    let (plain, at): (Vec<&ops::Completion>, Vec<usize>) = ops
        .iter()
        .enumerate()
        .filter_map(|(i, op)| match op {
            Op::Complete(done) if done.pending.is_none() && done.resumed.is_none() => {
                Some((&**done, i))
            }
            _ => None,
        })
        .unzip();
    if plain.len() > 1 {
        let applied = ops::bulk::complete_many(conn, &cx, &plain).await?;
        for (k, &i) in at.iter().enumerate() {
            replies[i] = Some(Reply::Done(applied.contains(&k)));
        }
    }
    let mut out = Vec::with_capacity(ops.len());
    for (op, reply) in ops.iter().zip(replies) {
        out.push(match reply {
            Some(reply) => reply,
            None => ops::run(conn, op, place).await?,
        });
    }
    Ok(out)
}

/// Runs each job in a transaction of its own.
async fn run_alone(conn: &mut AnyConnection, jobs: impl Iterator<Item = Job>, place: &str) {
    for job in jobs {
        let result = match begin(conn, place).await {
            Ok(()) => match ops::run(conn, &job.op, place).await {
                Ok(reply) => commit(conn, place).await.map(|()| reply),
                Err(error) => Err(rollback(conn, error).await),
            },
            Err(error) => Err(error),
        };
        let _ = job.reply.send(result);
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
    fn write(&self, op: Op) -> BoxFuture<'_, Result<Reply, JournalError>> {
        Box::pin(async move {
            let (reply, answer) = oneshot::channel();
            let sent = match self.jobs.lock().as_deref() {
                Ok(Some(jobs)) => jobs.send(Job { op, reply }).is_ok(),
                _ => false,
            };
            let stopped = || {
                JournalError::new(
                    JournalErrorKind::Unavailable,
                    format!("{} is closed", self.place),
                )
            };
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
