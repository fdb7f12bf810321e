//! Claiming an answered request's call, so that exactly one process resumes it.

use sqlx::AnyConnection;

use super::expire::expire_one;
use super::{Cx, Write, call_row, request_row};
use crate::error::JournalError;
use crate::store::status::{CallStatus, RequestStatus};
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
    AlreadyResumed { state: RequestStatus },
}

impl Write for BeginResume {
    type Output = ResumeStart;

    async fn run(
        &self,
        conn: &mut AnyConnection,
        cx: &Cx<'_>,
    ) -> Result<ResumeStart, JournalError> {
        let Some(request) = request_row(conn, cx, &self.request_id).await? else {
            return Ok(ResumeStart::Unknown);
        };
        match request.state {
            RequestStatus::Answered => {}
            RequestStatus::Pending if request.expires_at.is_some_and(|at| at <= self.now) => {
                expire_one(conn, cx, &request, self.now).await?;
                return Ok(ResumeStart::Expired);
            }
            RequestStatus::Pending => return Ok(ResumeStart::NotAnswered),
            RequestStatus::Expired => return Ok(ResumeStart::Expired),
            state @ (RequestStatus::Resuming | RequestStatus::Resolved) => {
                return Ok(ResumeStart::AlreadyResumed { state });
            }
        }
        if !take_call(conn, cx, self, &request.call_id).await? {
            return Ok(ResumeStart::AlreadyResumed { state: RequestStatus::Resuming });
        }
        sqlx::query(
            "UPDATE journal_requests SET state = $3, updated_at = $1 WHERE request_id = $2",
        )
        .bind(self.now)
        .bind(&self.request_id)
        .bind(RequestStatus::Resuming)
        .execute(&mut *conn)
        .await
        .map_err(cx.fail("mark a request as resuming"))?;
        let Some(call) = call_row(conn, cx, &request.call_id).await? else {
            return Ok(ResumeStart::Unknown);
        };
        Ok(ResumeStart::Run { call: Box::new(call), request: Box::new(request) })
    }
}

/// Moves the call `call_id` out of suspended, for `b`'s new attempt; false when another
/// resume did first. The call's row is the gate: of two resumes, only one moves it.
async fn take_call(
    conn: &mut AnyConnection,
    cx: &Cx<'_>,
    b: &BeginResume,
    call_id: &str,
) -> Result<bool, JournalError> {
    let taken = sqlx::query(
        "UPDATE journal_calls SET state = $6, attempt = attempt + 1, owner = $1, \
         lease_until = $2, updated_at = $3 \
         WHERE call_id = $4 AND state = $7 AND request_id = $5",
    )
    .bind(&b.owner)
    .bind(b.lease_until)
    .bind(b.now)
    .bind(call_id)
    .bind(&b.request_id)
    .bind(CallStatus::Running)
    .bind(CallStatus::Suspended)
    .execute(&mut *conn)
    .await
    .map_err(cx.fail("claim a call to resume"))?;
    Ok(taken.rows_affected() != 0)
}
