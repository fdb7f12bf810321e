//! The journal's writes, each run inside a transaction on one connection.
//!
//! An operation's logical outcome (a call that is running elsewhere, an answer that comes too
//! late) is an `Ok` [`Reply`]; an `Err` is a database failure, and the backend rolls back
//! whatever the operation wrote.

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
mod spend;

use sqlx::AnyConnection;
use toolwire::Receipt;

pub(crate) use answer::Answered;
pub(crate) use audit::AuditRow;
pub(crate) use claim::{Claim, Claimed};
pub(crate) use complete::{Completion, PendingRow};
pub(crate) use resolve::Resolve;
pub(crate) use resume::{BeginResume, ResumeStart};
pub(crate) use runs::{RunAnswered, SaveRun, WaitRow};

use super::rows::{CALL_COLUMNS, REQUEST_COLUMNS};
use super::{CallRow, RequestRow};
use crate::error::JournalError;

/// One write.
#[derive(Debug, Clone)]
pub(crate) enum Op {
    /// Claim a call id for running, or learn why not.
    Claim(Claim),
    /// Extend the lease of a running call.
    Renew { call_id: String, attempt: i64, until: i64 },
    /// Record a call's receipt.
    Complete(Box<Completion>),
    /// Record an answer to a request.
    Answer { answer: toolwire::Answer, now: i64 },
    /// Claim an answered request's call for resuming.
    BeginResume(BeginResume),
    /// Resolve every request that lapsed by `now` as declined.
    ExpireDue { now: i64 },
    /// The host's resolution of a call of unknown outcome.
    Resolve(Box<Resolve>),
    /// Append a receipt to the audit log.
    Append(AuditRow),
    /// Save a paused agent run, with the requests it waits on.
    SaveRun(Box<SaveRun>),
    /// Claim a paused run for a resume, until `until`, unless a claim holds it at `now`.
    ClaimRun { run_id: String, until: i64, now: i64 },
    /// Let a claimed run be claimed again.
    ReleaseRun { run_id: String },
    /// Forget a paused run.
    RemoveRun { run_id: String },
    /// Record an answer (as JSON) to a paused run's request.
    AnswerRun { request_id: String, answer: String, now: i64 },
    /// Record an approval as spent, unless it was spent before; lapsed ones are dropped.
    Spend { approval_id: String, digest: String, expires_at: i64, now: i64 },
}

/// What a write found or did.
#[derive(Debug)]
pub(crate) enum Reply {
    Claimed(Claimed),
    /// Whether the write applied.
    Done(bool),
    Answered(Answered),
    Resume(ResumeStart),
    Expired(Vec<Receipt>),
    RunAnswered(RunAnswered),
}

/// Runs `op` on `conn`, which is inside a transaction; `place` names the journal in errors.
pub(crate) async fn run(
    conn: &mut AnyConnection,
    op: &Op,
    place: &str,
) -> Result<Reply, JournalError> {
    let cx = Cx::new(place);
    match op {
        Op::Claim(claim) => claim::claim(conn, &cx, claim).await.map(Reply::Claimed),
        Op::Renew { call_id, attempt, until } => {
            claim::renew(conn, &cx, call_id, *attempt, *until).await.map(Reply::Done)
        }
        Op::Complete(done) => complete::complete(conn, &cx, done).await.map(Reply::Done),
        Op::Answer { answer, now } => {
            answer::answer(conn, &cx, answer, *now).await.map(Reply::Answered)
        }
        Op::BeginResume(begin) => resume::begin(conn, &cx, begin).await.map(Reply::Resume),
        Op::ExpireDue { now } => expire::expire_due(conn, &cx, *now).await.map(Reply::Expired),
        Op::Resolve(resolve) => resolve::resolve(conn, &cx, resolve).await.map(Reply::Done),
        Op::Append(row) => audit::append(conn, &cx, row).await.map(|()| Reply::Done(true)),
        Op::SaveRun(run) => runs::save(conn, &cx, run).await.map(|()| Reply::Done(true)),
        Op::ClaimRun { run_id, until, now } => {
            runs::claim(conn, &cx, run_id, *until, *now).await.map(Reply::Done)
        }
        Op::ReleaseRun { run_id } => runs::release(conn, &cx, run_id).await.map(Reply::Done),
        Op::RemoveRun { run_id } => runs::remove(conn, &cx, run_id).await.map(Reply::Done),
        Op::AnswerRun { request_id, answer, now } => {
            runs::answer(conn, &cx, request_id, answer, *now).await.map(Reply::RunAnswered)
        }
        Op::Spend { approval_id, digest, expires_at, now } => {
            spend::spend(conn, &cx, approval_id, digest, *expires_at, *now).await.map(Reply::Done)
        }
    }
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
