//! Claiming an answered request's call, so that exactly one process resumes it.

use sqlx::AnyConnection;

use super::expire::expire_one;
use super::{Cx, call_row, request_row};
use crate::error::JournalError;
use crate::store::{CallRow, RequestRow};

/// A process that wants to resume the call waiting on `request_id`.
#[derive(Debug, Clone)]
pub(crate) struct BeginResume {
    pub(crate) request_id: String,
    pub(crate) owner: String,
    pub(crate) now: i64,
    pub(crate) lease_until: i64,
}

/// What the journal says of a resume.
#[derive(Debug)]
pub(crate) enum ResumeStart {
    /// Resume it: the call is this process's, as its row's attempt.
    Run { call: Box<CallRow>, request: Box<RequestRow> },
    /// No request has this id.
    Unknown,
    /// The request has no answer yet.
    NotAnswered,
    /// The request lapsed; it is now resolved as declined.
    Expired,
    /// Another process resumed it, or is resuming it now.
    AlreadyResumed { state: String },
}

pub(super) async fn begin(
    conn: &mut AnyConnection,
    cx: &Cx<'_>,
    b: &BeginResume,
) -> Result<ResumeStart, JournalError> {
    let Some(request) = request_row(conn, cx, &b.request_id).await? else {
        return Ok(ResumeStart::Unknown);
    };
    match request.state.as_str() {
        "answered" => {}
        "pending" if request.expires_at.is_some_and(|at| at <= b.now) => {
            expire_one(conn, cx, &request, b.now).await?;
            return Ok(ResumeStart::Expired);
        }
        "pending" => return Ok(ResumeStart::NotAnswered),
        "expired" => return Ok(ResumeStart::Expired),
        other => return Ok(ResumeStart::AlreadyResumed { state: other.to_owned() }),
    }
    // The call's row is the gate: of two resumes, only one moves it out of `suspended`.
    let taken = sqlx::query(
        "UPDATE journal_calls SET state = 'running', attempt = attempt + 1, owner = $1, \
         lease_until = $2, updated_at = $3 \
         WHERE call_id = $4 AND state = 'suspended' AND request_id = $5",
    )
    .bind(&b.owner)
    .bind(b.lease_until)
    .bind(b.now)
    .bind(&request.call_id)
    .bind(&b.request_id)
    .execute(&mut *conn)
    .await
    .map_err(cx.fail("claim a call to resume"))?;
    if taken.rows_affected() == 0 {
        return Ok(ResumeStart::AlreadyResumed { state: "resuming".into() });
    }
    sqlx::query(
        "UPDATE journal_requests SET state = 'resuming', updated_at = $1 WHERE request_id = $2",
    )
    .bind(b.now)
    .bind(&b.request_id)
    .execute(&mut *conn)
    .await
    .map_err(cx.fail("mark a request as resuming"))?;
    let Some(call) = call_row(conn, cx, &request.call_id).await? else {
        return Ok(ResumeStart::Unknown);
    };
    Ok(ResumeStart::Run { call: Box::new(call), request: Box::new(request) })
}
