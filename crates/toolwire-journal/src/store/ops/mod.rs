//! The journal's writes, each run inside a transaction on one connection.
//!
//! Each write is a type of its own that implements [`Write`], whose [`Output`](Write::Output)
//! is what that write answers: a claim answers [`Claimed`], a lease renewal whether it
//! applied. A write's logical outcome (a call that is running elsewhere, an answer that comes
//! too late) is an `Ok` output; an `Err` is a database failure, and the backend rolls back
//! whatever the write wrote.

mod answer;
mod audit;
#[cfg(feature = "sqlite")]
pub(crate) mod bulk;
mod claim;
mod complete;
mod expire;
mod resolve;
mod resume;
mod runs;
mod settle;
mod spend;
mod tasks;

use std::fmt;
use std::future::Future;

use sqlx::AnyConnection;

pub(crate) use answer::{Answered, RecordAnswer};
pub(crate) use audit::{Append, AuditRow};
pub(crate) use claim::{Claim, Claimed, Renew};
pub(crate) use complete::{Completion, PendingRow};
pub(crate) use expire::ExpireDue;
pub(crate) use resolve::Resolve;
pub(crate) use resume::{BeginResume, ResumeStart};
pub(crate) use runs::{AnswerRun, ClaimRun, ReleaseRun, RemoveRun, RunAnswered, SaveRun, WaitRow};
pub(crate) use spend::Spend;
pub(crate) use tasks::{CreateTask, UpdateTask};

use super::rows::{CALL_COLUMNS, REQUEST_COLUMNS};
use super::{CallRow, RequestRow};
use crate::error::JournalError;

/// One write to the journal, answered with its own [`Output`](Self::Output).
pub(crate) trait Write: fmt::Debug + Send + Sync + 'static {
    /// What the write found or did.
    type Output: Send + 'static;

    /// Runs the write on `conn`, which is inside a transaction that the backend commits.
    fn run(
        &self,
        conn: &mut AnyConnection,
        cx: &Cx<'_>,
    ) -> impl Future<Output = Result<Self::Output, JournalError>> + Send;

    /// The statement this write may share with others of its kind in an SQLite group commit.
    #[cfg(feature = "sqlite")]
    fn grouped(&self) -> Option<Grouped<'_>> {
        None
    }

    /// The output of a write that a shared statement settled (`won`: its row was the one
    /// inserted or updated), or `None` when it must still [`run`](Self::run) on its own.
    #[cfg(feature = "sqlite")]
    fn grouped_output(won: bool) -> Option<Self::Output>
    where
        Self: Sized,
    {
        let _ = won;
        None
    }
}

/// A write that the SQLite writer can fold, with others of its kind, into one statement.
#[cfg(feature = "sqlite")]
#[derive(Debug, Clone, Copy)]
pub(crate) enum Grouped<'a> {
    /// The claim of a call id, which a shared insert settles if the id is new.
    Claim(&'a Claim),
    /// The completion of a call that neither suspended nor resumed.
    Complete(&'a Completion),
}

/// What every operation needs to word its errors.
pub(crate) struct Cx<'a> {
    place: &'a str,
}

impl<'a> Cx<'a> {
    /// The context of writes to the journal at `place`.
    pub(crate) fn new(place: &'a str) -> Self {
        Self { place }
    }

    /// Wraps a database error of `doing`.
    fn fail(&self, doing: &'static str) -> impl Fn(sqlx::Error) -> JournalError + '_ {
        move |error| JournalError::database(doing, self.place, error)
    }
}

/// The row of `call_id`, if any.
async fn call_row(
    conn: &mut AnyConnection,
    cx: &Cx<'_>,
    call_id: &str,
) -> Result<Option<CallRow>, JournalError> {
    let sql = format!("SELECT {CALL_COLUMNS} FROM journal_calls WHERE call_id = $1");
    let row = sqlx::query(&sql)
        .bind(call_id)
        .fetch_optional(&mut *conn)
        .await
        .map_err(cx.fail("read a call"))?;
    row.as_ref().map(CallRow::read).transpose()
}

/// The row of request `request_id`, if any.
async fn request_row(
    conn: &mut AnyConnection,
    cx: &Cx<'_>,
    request_id: &str,
) -> Result<Option<RequestRow>, JournalError> {
    let sql = format!("SELECT {REQUEST_COLUMNS} FROM journal_requests WHERE request_id = $1");
    let row = sqlx::query(&sql)
        .bind(request_id)
        .fetch_optional(&mut *conn)
        .await
        .map_err(cx.fail("read a request"))?;
    row.as_ref().map(RequestRow::read).transpose()
}
