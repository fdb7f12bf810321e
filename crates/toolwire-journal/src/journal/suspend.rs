//! Durable suspensions: the calls waiting on a request, listed, answered, resumed and expired.

use std::time::{Instant, SystemTime};

use toolwire::{Answer, InvocationId, Receipt, Registry, Request, ToolCall};

use super::Journal;
use super::invoke::{JournaledCall, Target};
use crate::error::{JournalError, JournalErrorKind};
use crate::store::ops::{Answered, BeginResume, ExpireDue, RecordAnswer, ResumeStart};
use crate::store::{RequestRow, now_millis, reads, time_of};

/// A suspended call and the request it waits on, as the journal holds them.
#[non_exhaustive]
#[derive(Debug, Clone, PartialEq)]
pub struct Suspension {
    /// The call: its id, tool and arguments.
    pub call: ToolCall,
    /// The invocation that suspended.
    pub invocation_id: InvocationId,
    /// What it waits for.
    pub request: Request,
    /// The host's answer, once given, until the call is resumed.
    pub answer: Option<Answer>,
    /// When it suspended.
    pub suspended_at: SystemTime,
    /// When the request lapses, if it does.
    pub expires_at: Option<SystemTime>,
}

/// Which suspensions [`Journal::pending`] lists: all by default.
#[derive(Debug, Clone, Default)]
pub struct PendingFilter {
    tool: Option<String>,
    kind: Option<String>,
}

impl PendingFilter {
    /// Every suspension.
    pub fn all() -> Self {
        Self::default()
    }

    /// Only calls of `tool`.
    pub fn tool(mut self, tool: impl Into<String>) -> Self {
        self.tool = Some(tool.into());
        self
    }

    /// Only requests of `kind`, such as `"approval"`.
    pub fn kind(mut self, kind: impl Into<String>) -> Self {
        self.kind = Some(kind.into());
        self
    }
}

impl Journal {
    /// The suspended calls whose requests are not yet resolved, oldest first: unanswered, or
    /// answered and not yet resumed.
    ///
    /// # Errors
    ///
    /// A database error, or a stored record that does not decode.
    ///
    /// # Cancel safety
    ///
    /// Safe: it only reads, and dropping it changes nothing.
    pub async fn pending(&self, filter: &PendingFilter) -> Result<Vec<Suspension>, JournalError> {
        let rows = reads::open_requests(
            self.engine.reader(),
            self.engine.place(),
            filter.tool.as_deref(),
            filter.kind.as_deref(),
        )
        .await?;
        rows.into_iter().map(|(row, arguments)| suspension(row, &arguments)).collect()
    }

    /// Records `answer` for the request with its id, for a later [`resume`](Self::resume).
    /// Of two answers to one request the first wins.
    ///
    /// # Errors
    ///
    /// [`UnknownRequest`](JournalErrorKind::UnknownRequest) when no request has the answer's
    /// id; [`Expired`](JournalErrorKind::Expired) when it lapsed (it is then resolved as
    /// declined); [`AlreadyAnswered`](JournalErrorKind::AlreadyAnswered) for a second answer;
    /// [`AnswerMismatch`](JournalErrorKind::AnswerMismatch) when the stored request was made
    /// for other arguments than its call holds.
    ///
    /// # Cancel safety
    ///
    /// A write: dropping the future does not undo it, and it may still commit: read the state
    /// back to learn whether it did.
    pub async fn answer(&self, answer: Answer) -> Result<Suspension, JournalError> {
        let id = answer.id.clone();
        match self.engine.write(RecordAnswer { answer, now: now_millis() }).await? {
            Answered::Recorded(row) => {
                let call =
                    reads::call(self.engine.reader(), self.engine.place(), &row.call_id).await?;
                suspension(*row, call.as_ref().map_or("null", |c| c.arguments.as_str()))
            }
            Answered::Unknown => Err(unknown_request(&id)),
            Answered::Expired => Err(expired(&id)),
            Answered::Mismatch(why) => Err(JournalError::new(
                JournalErrorKind::AnswerMismatch,
                format!("answer refused: {why}"),
            )),
            Answered::Duplicate { first, state } => {
                let first = first.and_then(|json| serde_json::from_str::<Answer>(&json).ok());
                let how = match first {
                    Some(first) if first.ok => "accepted",
                    Some(_) => "declined",
                    None => "answered",
                };
                let state = state.map(|state| state.to_string()).unwrap_or_default();
                let text = format!(
                    "request {id:?} was already {how} (now {state}); the first answer stands"
                );
                Err(JournalError::new(JournalErrorKind::AlreadyAnswered, text))
            }
        }
    }

    /// Prepares the resumption of the call waiting on the answered request `request_id`:
    /// the call runs again through `registry`, with the same tool, arguments and call id,
    /// and the answer. Of two processes resuming one request, one runs it and the other
    /// gets [`AlreadyResumed`](JournalErrorKind::AlreadyResumed).
    ///
    /// `registry` must be sealed with [`approval_key`](Self::approval_key) for an approval
    /// asked in another process to pass.
    pub fn resume(&self, registry: &Registry, request_id: &str) -> JournaledCall {
        JournaledCall::new(self, registry, Target::Resume { request_id: request_id.to_owned() })
    }

    /// Resolves every request that lapsed as declined, with the reason "expired": its call
    /// completes as denied and never runs again. Returns the receipts of those calls.
    ///
    /// # Errors
    ///
    /// A database error; nothing is expired then.
    ///
    /// # Cancel safety
    ///
    /// A write: dropping the future does not undo it, and it may still commit: read the state
    /// back to learn whether it did.
    pub async fn expire_due(&self) -> Result<Vec<Receipt>, JournalError> {
        self.engine.write(ExpireDue { now: now_millis() }).await
    }
}

impl JournaledCall {
    pub(super) async fn run_resume(
        mut self,
        request_id: String,
        deadline: Option<Instant>,
    ) -> Result<Receipt, JournalError> {
        let now = now_millis();
        let begin = BeginResume {
            request_id: request_id.clone(),
            owner: self.engine.owner.clone(),
            now,
            lease_until: self.engine.lease_from(now),
        };
        let (call, request, attempt) = match self.engine.write(begin).await? {
            ResumeStart::Run { call, request } => {
                let attempt = call.attempt;
                (call, request, attempt)
            }
            ResumeStart::Unknown => return Err(unknown_request(&request_id)),
            ResumeStart::Expired => return Err(expired(&request_id)),
            ResumeStart::NotAnswered => {
                let text = format!(
                    "request {request_id:?} has no answer yet: answer it before resuming its call"
                );
                return Err(JournalError::new(JournalErrorKind::NotAnswered, text));
            }
            ResumeStart::AlreadyResumed { state } => {
                let text = format!(
                    "request {request_id:?} was already resumed (it is {state}): its call runs once"
                );
                return Err(JournalError::new(JournalErrorKind::AlreadyResumed, text));
            }
        };
        let answer: Answer = decode(request.answer.as_deref().unwrap_or("null"), "answer")?;
        let arguments = decode(&call.arguments, "arguments")?;
        let call_id = toolwire::CallId::from(call.call_id.as_str());
        let lease = self.engine.hold_lease(&call.call_id, attempt);
        let receipt =
            self.invocation(&call.tool, arguments, &call_id, Some(answer), deadline).await;
        drop(lease);
        self.engine.complete(&call.call_id, &call.digest, attempt, receipt, Some(request_id)).await
    }
}

fn suspension(row: RequestRow, arguments: &str) -> Result<Suspension, JournalError> {
    let answer = row.answer.as_deref().map(|json| decode(json, "answer")).transpose()?;
    let invocation_id =
        row.invocation_id.parse().map_err(|e| JournalError::corrupt("invocation id", e))?;
    Ok(Suspension {
        call: ToolCall::new(row.call_id, row.tool, decode(arguments, "arguments")?),
        invocation_id,
        request: decode(&row.request, "request")?,
        answer,
        suspended_at: time_of(row.created_at),
        expires_at: row.expires_at.map(time_of),
    })
}

fn decode<T: serde::de::DeserializeOwned>(json: &str, what: &str) -> Result<T, JournalError> {
    serde_json::from_str(json).map_err(|e| JournalError::corrupt(what, e))
}

fn unknown_request(id: &str) -> JournalError {
    JournalError::new(
        JournalErrorKind::UnknownRequest,
        format!("no suspended call waits on request {id:?}"),
    )
}

fn expired(id: &str) -> JournalError {
    JournalError::new(
        JournalErrorKind::Expired,
        format!(
            "request {id:?} expired before it was answered; its call was declined (reason: expired)"
        ),
    )
}
