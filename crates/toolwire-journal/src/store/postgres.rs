//! The PostgreSQL backend: many processes, on one machine or many, share one journal.
//!
//! Each write is its own transaction on a pooled connection; PostgreSQL groups concurrent
//! commits itself. Every write is a conditional update or an insert that does nothing on a
//! conflict, so two processes racing on one call id serialize on its row.

use std::time::Duration;

use sqlx::any::AnyPoolOptions;
use sqlx::{AnyConnection, AnyPool, Connection};
use toolwire::policy::ApprovalKey;

use super::ops::Cx;
use super::schema::{self, Flavor};
use super::{BoxFuture, Job, Store, install_drivers};
use crate::error::JournalError;

/// How often a write that lost a deadlock or a serialization check is tried again.
const RETRIES: usize = 5;

/// A PostgreSQL journal.
#[derive(Debug)]
pub(crate) struct PostgresStore {
    pool: AnyPool,
    place: String,
}

impl PostgresStore {
    /// Opens the journal at `url`, making its tables if they are missing.
    pub(crate) async fn open(
        url: &str,
        connections: u32,
    ) -> Result<(Self, ApprovalKey), JournalError> {
        install_drivers();
        let place = format!("postgres journal {:?}", redact(url));
        // One connection first, so that a server that is not there fails at once, not after
        // the pool's retries.
        let opening = |e| JournalError::database("open the journal", &place, e);
        let mut conn = AnyConnection::connect(url).await.map_err(opening)?;
        schema::migrate(&mut conn, Flavor::Postgres, &place).await?;
        let key = schema::approval_key(&mut conn, &place).await?;
        let _ = conn.close().await;
        let pool = AnyPoolOptions::new()
            .max_connections(connections.max(2))
            .acquire_timeout(Duration::from_secs(10))
            .connect_lazy(url)
            .map_err(opening)?;
        Ok((Self { pool, place }, key))
    }

    /// Runs `job` in a transaction of its own and commits it; a failed attempt rolls back.
    async fn attempt(&self, job: &mut dyn Job) -> Result<(), JournalError> {
        let mut tx = self
            .pool
            .begin()
            .await
            .map_err(|e| JournalError::database("begin a write", &self.place, e))?;
        job.run(&mut tx, &Cx::new(&self.place)).await?;
        tx.commit().await.map_err(|e| JournalError::database("commit a write", &self.place, e))
    }
}

/// `url` without its password.
fn redact(url: &str) -> String {
    match (url.find("://"), url.rfind('@')) {
        (Some(scheme), Some(at)) if at > scheme => {
            let user = &url[scheme + 3..at];
            let user = user.split(':').next().unwrap_or_default();
            format!("{}{user}@{}", &url[..scheme + 3], &url[at + 1..])
        }
        _ => url.to_owned(),
    }
}

/// Whether PostgreSQL refused a write that may pass when tried again.
fn retryable(error: &JournalError) -> bool {
    let source = std::error::Error::source(error);
    let Some(sqlx::Error::Database(db)) = source.and_then(|s| s.downcast_ref::<sqlx::Error>())
    else {
        return false;
    };
    matches!(db.code().as_deref(), Some("40001" | "40P01"))
}

impl Store for PostgresStore {
    fn submit(&self, mut job: Box<dyn Job>) -> BoxFuture<'_, ()> {
        Box::pin(async move {
            let mut tries = 0;
            let committed = loop {
                tries += 1;
                match self.attempt(&mut *job).await {
                    Err(error) if tries < RETRIES && retryable(&error) => job.forget(),
                    other => break other,
                }
            };
            job.answer(committed);
        })
    }

    fn reader(&self) -> &AnyPool {
        &self.pool
    }

    fn place(&self) -> &str {
        &self.place
    }

    fn close(&self) -> BoxFuture<'_, ()> {
        Box::pin(self.pool.close())
    }
}
