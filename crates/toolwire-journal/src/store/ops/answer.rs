//! Recording a host's answer to a stored request.

use sqlx::AnyConnection;
use toolwire::{Answer, Request};

use super::expire::expire_one;
use super::settle::settle;
use super::{Cx, Write, call_row, request_row};
use crate::error::JournalError;
use crate::store::RequestRow;
use crate::store::status::RequestStatus;

/// What became of an answer.
#[derive(Debug)]
pub(crate) enum Answered {
    /// It is recorded; the request's row, with it.
    Recorded(Box<RequestRow>),
    /// No request has its id.
    Unknown,
    /// The request was answered before, with this answer (as JSON); it is now in `state`
    /// (`None`: its row is gone).
    Duplicate { first: Option<String>, state: Option<RequestStatus> },
    /// The request lapsed; it is now resolved as declined.
    Expired,
    /// The stored request does not belong to its call.
    Mismatch(String),
}

/// A host's answer to a stored request, given at `now`.
#[derive(Debug, Clone)]
pub(crate) struct RecordAnswer {
    pub(crate) answer: Answer,
    pub(crate) now: i64,
}

impl Write for RecordAnswer {
    type Output = Answered;

    async fn run(&self, conn: &mut AnyConnection, cx: &Cx<'_>) -> Result<Answered, JournalError> {
        let (answer, now) = (&self.answer, self.now);
        let Some(mut row) = request_row(conn, cx, &answer.id).await? else {
            return Ok(Answered::Unknown);
        };
        match row.state {
            RequestStatus::Pending => {}
            RequestStatus::Expired => return Ok(Answered::Expired),
            RequestStatus::Answered | RequestStatus::Resuming | RequestStatus::Resolved => {
                return Ok(Answered::Duplicate { first: row.answer, state: Some(row.state) });
            }
        }
        if row.expires_at.is_some_and(|at| at <= now) {
            expire_one(conn, cx, &row, now).await?;
            return Ok(Answered::Expired);
        }
        if let Some(why) = binding_problem(conn, cx, &row).await? {
            return Ok(Answered::Mismatch(why));
        }
        let Some(json) = settle(conn, cx, answer, RequestStatus::Answered, now).await? else {
            let first = request_row(conn, cx, &answer.id).await?;
            let (first, state) = first.map_or((None, None), |r| (r.answer, Some(r.state)));
            return Ok(Answered::Duplicate { first, state });
        };
        row.state = RequestStatus::Answered;
        row.answer = Some(json);
        Ok(Answered::Recorded(Box::new(row)))
    }
}

/// Why the stored request does not bind to its stored call, if it does not: the digest the
/// policy put in the request must be the digest of the call the journal holds.
async fn binding_problem(
    conn: &mut AnyConnection,
    cx: &Cx<'_>,
    row: &RequestRow,
) -> Result<Option<String>, JournalError> {
    let request: Request =
        serde_json::from_str(&row.request).map_err(|e| JournalError::corrupt("request", e))?;
    let Some(digest) = request.digest else { return Ok(None) };
    let call = call_row(conn, cx, &row.call_id).await?;
    Ok(match call {
        Some(call) if call.digest == digest => None,
        Some(_) => Some(format!(
            "request {:?} was issued for other arguments than call {:?} holds",
            row.request_id, row.call_id
        )),
        None => Some(format!(
            "request {:?} names call {:?}, which the journal lacks",
            row.request_id, row.call_id
        )),
    })
}
