//! Paused agent runs: a run whose calls wait for answers, kept so that any process sharing
//! the journal can answer its requests and resume it.

use std::time::SystemTime;

use serde_json::Value;
use toolwire::{Answer, Request};

use super::Journal;
use super::call::expiry;
use crate::error::{JournalError, JournalErrorKind};
use crate::store::ops::{
    AnswerRun, ClaimRun, ReleaseRun, RemoveRun, RunAnswered, SaveRun, WaitRow,
};
use crate::store::run_reads::{self, RunRow};
use crate::store::{millis, millis_of, now_millis, shown_time, time_of};

/// A paused agent run, as the journal keeps it: its state, opaque to the journal, and the
/// requests its calls wait on.
///
/// The agent's own state type is serialized into [`state`](Self::state); the journal reads
/// only the run's id, its label and its requests. `toolwire-agent` (feature `journal`) saves
/// and loads its runs this way. It is `#[non_exhaustive]`: build one with
/// [`new`](Self::new) and [`wait`](Self::wait).
///
/// ```
/// use serde_json::json;
/// use toolwire::{Answer, Request};
/// use toolwire_journal::{PausedRun, RunRequest};
///
/// let request = Request::new("approval", "Deploy to prod?");
/// let run = PausedRun::new("run-1", "gpt-5", json!({"turns": 3}))
///     .wait("call_1", "deploy", request.clone());
/// assert_eq!(run.waiting, [RunRequest::new("call_1", "deploy", request.clone())]);
/// let answered = RunRequest::new("call_1", "deploy", request.clone())
///     .with_answer(Answer::accept(request.id.clone(), json!(null)));
/// assert!(answered.answer.is_some());
/// ```
#[derive(Debug, Clone, PartialEq)]
#[non_exhaustive]
pub struct PausedRun {
    /// The run's id, unique across processes.
    pub run_id: String,
    /// What to show for the run in lists, such as the model that runs it.
    pub label: String,
    /// The run's state, as its agent wrote it.
    pub state: Value,
    /// The calls that wait, in call order, each with the answer recorded for it so far.
    pub waiting: Vec<RunRequest>,
    /// When the run was first paused.
    pub created_at: SystemTime,
    /// When the run was last saved or claimed.
    pub updated_at: SystemTime,
    /// Until when a resume that claimed the run holds it, if one does.
    pub claimed_until: Option<SystemTime>,
}

/// A call of a paused run that waits for an answer; `#[non_exhaustive]`: build one with
/// [`new`](Self::new).
#[derive(Debug, Clone, PartialEq)]
#[non_exhaustive]
pub struct RunRequest {
    /// The model's id for the call.
    pub call_id: String,
    /// The tool called.
    pub tool: String,
    /// What the call waits for.
    pub request: Request,
    /// The answer recorded for it, once one is.
    pub answer: Option<Answer>,
}

impl RunRequest {
    /// The call `call_id` of `tool`, waiting on `request`, unanswered.
    pub fn new(call_id: impl Into<String>, tool: impl Into<String>, request: Request) -> Self {
        Self { call_id: call_id.into(), tool: tool.into(), request, answer: None }
    }

    /// With `answer` recorded for it.
    pub fn with_answer(mut self, answer: Answer) -> Self {
        self.answer = Some(answer);
        self
    }
}

impl PausedRun {
    /// A run to save: created and updated now, unclaimed.
    pub fn new(run_id: impl Into<String>, label: impl Into<String>, state: Value) -> Self {
        let now = SystemTime::now();
        Self {
            run_id: run_id.into(),
            label: label.into(),
            state,
            waiting: Vec::new(),
            created_at: now,
            updated_at: now,
            claimed_until: None,
        }
    }

    /// Adds a call that waits on `request`.
    pub fn wait(
        mut self,
        call_id: impl Into<String>,
        tool: impl Into<String>,
        request: Request,
    ) -> Self {
        self.waiting.push(RunRequest::new(call_id, tool, request));
        self
    }

    /// The answers recorded so far.
    pub fn answers(&self) -> impl Iterator<Item = &Answer> {
        self.waiting.iter().filter_map(|wait| wait.answer.as_ref())
    }
}

impl Journal {
    /// Saves a paused run, replacing what was saved under its id, and releases any claim
    /// on it. An answer recorded before for a request the run still waits on is kept;
    /// requests it no longer waits on are forgotten.
    ///
    /// # Errors
    ///
    /// A [`JournalError`] when the database cannot record it.
    ///
    /// # Cancel safety
    ///
    /// A write: dropping the future does not undo it, and it may still commit: read the state
    /// back to learn whether it did.
    pub async fn save_run(&self, run: &PausedRun) -> Result<(), JournalError> {
        let now = now_millis();
        let mut waiting = Vec::with_capacity(run.waiting.len());
        for wait in &run.waiting {
            let json = |what, value: Result<String, serde_json::Error>| {
                value.map_err(|e| JournalError::corrupt(what, e))
            };
            waiting.push(WaitRow {
                request_id: wait.request.id.clone(),
                call_id: wait.call_id.clone(),
                tool: wait.tool.clone(),
                request: json("request", serde_json::to_string(&wait.request))?,
                expires_at: wait.request.expires_at.as_deref().map(|at| expiry(at, now)),
                answer: match &wait.answer {
                    Some(answer) => Some(json("answer", serde_json::to_string(answer))?),
                    None => None,
                },
            });
        }
        let state =
            serde_json::to_string(&run.state).map_err(|e| JournalError::corrupt("run state", e))?;
        let save =
            SaveRun { run_id: run.run_id.clone(), label: run.label.clone(), state, waiting, now };
        self.engine.write(save).await
    }

    /// The paused run `run_id`, if the journal holds it.
    ///
    /// # Errors
    ///
    /// A [`JournalError`] when the database cannot be read, or the run's records cannot be
    /// decoded ([`Corrupt`](JournalErrorKind::Corrupt)).
    ///
    /// # Cancel safety
    ///
    /// Safe: it only reads, and dropping it changes nothing.
    pub async fn run(&self, run_id: &str) -> Result<Option<PausedRun>, JournalError> {
        let row = run_reads::run(self.engine.reader(), self.engine.place(), run_id).await?;
        row.map(paused).transpose()
    }

    /// Every paused run, oldest first.
    ///
    /// # Errors
    ///
    /// As [`run`](Self::run).
    ///
    /// # Cancel safety
    ///
    /// Safe: it only reads, and dropping it changes nothing.
    pub async fn runs(&self) -> Result<Vec<PausedRun>, JournalError> {
        let rows = run_reads::runs(self.engine.reader(), self.engine.place()).await?;
        rows.into_iter().map(paused).collect()
    }

    /// Claims the paused run `run_id` for a resume and returns it: until the claim lapses
    /// (see [`JournalOptions::run_claim`](crate::JournalOptions::run_claim)), or the run is
    /// saved, released or removed, no other claim on it succeeds, so two processes never
    /// resume one run at once.
    ///
    /// # Errors
    ///
    /// [`UnknownRun`](JournalErrorKind::UnknownRun) when the journal holds no such run;
    /// [`AlreadyResumed`](JournalErrorKind::AlreadyResumed) when another resume holds it.
    ///
    /// # Cancel safety
    ///
    /// A write: dropping the future does not undo it, and it may still commit: read the state
    /// back to learn whether it did.
    pub async fn claim_run(&self, run_id: &str) -> Result<PausedRun, JournalError> {
        let now = now_millis();
        let until = now.saturating_add(millis_of(self.engine.options.run_claim));
        let claimed = self.engine.write(ClaimRun { run_id: run_id.to_owned(), until, now }).await?;
        let Some(run) = self.run(run_id).await? else { return Err(unknown_run(run_id)) };
        if claimed {
            return Ok(run);
        }
        let until = run.claimed_until.map(|at| shown_time(millis(at)));
        let text = match until {
            Some(until) => {
                format!("run {run_id:?} is being resumed elsewhere (claimed until {until})")
            }
            None => format!("run {run_id:?} is being resumed elsewhere"),
        };
        Err(JournalError::new(JournalErrorKind::AlreadyResumed, text))
    }

    /// Releases a claim on `run_id` without changing the run, so that it can be resumed
    /// again at once; whether the journal holds the run.
    ///
    /// # Errors
    ///
    /// A [`JournalError`] when the database cannot record it.
    ///
    /// # Cancel safety
    ///
    /// A write: dropping the future does not undo it, and it may still commit: read the state
    /// back to learn whether it did.
    pub async fn release_run(&self, run_id: &str) -> Result<bool, JournalError> {
        self.engine.write(ReleaseRun { run_id: run_id.to_owned() }).await
    }

    /// Forgets the paused run `run_id` and its requests; whether the journal held it.
    ///
    /// # Errors
    ///
    /// A [`JournalError`] when the database cannot record it.
    ///
    /// # Cancel safety
    ///
    /// A write: dropping the future does not undo it, and it may still commit: read the state
    /// back to learn whether it did.
    pub async fn remove_run(&self, run_id: &str) -> Result<bool, JournalError> {
        self.engine.write(RemoveRun { run_id: run_id.to_owned() }).await
    }

    /// Records `answer` to a request a paused run waits on, and returns the run's id. The
    /// first answer stands; the run's resume uses it (and the registry checks its binding
    /// to the call then).
    ///
    /// # Errors
    ///
    /// [`UnknownRequest`](JournalErrorKind::UnknownRequest) when no paused run waits on the
    /// request; [`AlreadyAnswered`](JournalErrorKind::AlreadyAnswered) for a second answer;
    /// [`Expired`](JournalErrorKind::Expired) when the request lapsed.
    ///
    /// # Cancel safety
    ///
    /// A write: dropping the future does not undo it, and it may still commit: read the state
    /// back to learn whether it did.
    pub async fn answer_run(&self, answer: &Answer) -> Result<String, JournalError> {
        let json = serde_json::to_string(answer).map_err(|e| JournalError::corrupt("answer", e))?;
        let id = answer.id.clone();
        let write = AnswerRun { request_id: id.clone(), answer: json, now: now_millis() };
        match self.engine.write(write).await? {
            RunAnswered::Recorded(run_id) => Ok(run_id),
            RunAnswered::Unknown => Err(JournalError::new(
                JournalErrorKind::UnknownRequest,
                format!("no paused run waits on request {id:?}"),
            )),
            RunAnswered::Expired => Err(JournalError::new(
                JournalErrorKind::Expired,
                format!("request {id:?} expired before it was answered"),
            )),
            RunAnswered::Duplicate(first) => {
                let how = match serde_json::from_str::<Answer>(&first) {
                    Ok(first) if first.ok => "accepted",
                    Ok(_) => "declined",
                    Err(_) => "answered",
                };
                let text = format!("request {id:?} was already {how}; the first answer stands");
                Err(JournalError::new(JournalErrorKind::AlreadyAnswered, text))
            }
        }
    }
}

/// Decodes a run's rows.
fn paused(row: RunRow) -> Result<PausedRun, JournalError> {
    let state =
        serde_json::from_str(&row.state).map_err(|e| JournalError::corrupt("run state", e))?;
    let mut waiting = Vec::with_capacity(row.waiting.len());
    for wait in row.waiting {
        let request = serde_json::from_str(&wait.request)
            .map_err(|e| JournalError::corrupt("run request", e))?;
        let answer = match wait.answer {
            Some(json) => Some(
                serde_json::from_str(&json).map_err(|e| JournalError::corrupt("run answer", e))?,
            ),
            None => None,
        };
        waiting.push(RunRequest { call_id: wait.call_id, tool: wait.tool, request, answer });
    }
    let claimed = row.claimed_until > now_millis();
    Ok(PausedRun {
        run_id: row.run_id,
        label: row.label,
        state,
        waiting,
        created_at: time_of(row.created_at),
        updated_at: time_of(row.updated_at),
        claimed_until: claimed.then(|| time_of(row.claimed_until)),
    })
}

fn unknown_run(run_id: &str) -> JournalError {
    JournalError::new(
        JournalErrorKind::UnknownRun,
        format!("the journal holds no paused run {run_id:?}"),
    )
}
