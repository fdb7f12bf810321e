//! An answer from the inbox, acted on: recorded in the journal with who gave it, and then
//! the call run (or the run continued) where nobody else waits to do it. The journal makes
//! it exactly once: of two answers to one request the first stands, and a call resumes once.

use serde::{Deserialize, Serialize};
use serde_json::Value;
use toolwire::{Answer, Principal};
use toolwire_journal::{JournalError, JournalErrorKind};

use super::Shared;
use super::items::{self, Item, Kind};

/// What an answer does.
#[derive(Debug, Clone, Copy, Deserialize)]
#[serde(rename_all = "snake_case")]
pub(crate) enum Action {
    /// Accept: the call goes on.
    Approve,
    /// Refuse, with an optional reason: nothing runs.
    Decline,
    /// Accept with a filled-in form (`data`).
    Submit,
}

/// The body of `POST /api/answer`.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub(crate) struct AnswerBody {
    /// The request answered.
    pub(crate) request_id: String,
    /// What to do.
    pub(crate) action: Action,
    /// Why it was declined.
    #[serde(default)]
    pub(crate) reason: Option<String>,
    /// The form's content, for `submit`.
    #[serde(default)]
    pub(crate) data: Option<Value>,
}

/// What came of an answer.
#[derive(Debug, Serialize)]
pub(crate) struct Acted {
    /// `ran` (the call ran, or was settled as declined), `answered` (its caller goes on
    /// with it), or `resuming` (the inbox continues an agent run).
    pub(crate) status: &'static str,
    /// What happened, in words.
    pub(crate) message: String,
    /// The call's result, when the inbox ran it: `{"text": ..., "is_error": ...}`.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub(crate) result: Option<Value>,
}

/// Why an answer was refused, with the HTTP status that says so.
#[derive(Debug)]
pub(crate) struct Refused {
    /// 400, 404, 409, 410 or 500.
    pub(crate) status: u16,
    /// What was wrong.
    pub(crate) message: String,
}

impl Refused {
    fn new(status: u16, message: impl Into<String>) -> Self {
        Self { status, message: message.into() }
    }
}

/// Longest reason kept.
const MAX_REASON: usize = 2000;

/// Acts on `body`, answered by `who`.
///
/// # Errors
///
/// A request that waits nowhere (404), that was answered already (409) or lapsed (410), a
/// body that does not fit the request (400), or a journal failure (500).
pub(crate) async fn answer(
    shared: &Shared,
    who: Principal,
    body: AnswerBody,
) -> Result<Acted, Refused> {
    let item = match find(shared, &body.request_id).await {
        Ok(item) => item,
        Err(refused) => return Err(shared.answers.earlier(&body.request_id).unwrap_or(refused)),
    };
    let answer = build(&item, &body)?.by(who);
    let record =
        format!("{} by {}", if answer.ok { "accepted" } else { "declined" }, who_of(&answer));
    let acted = match item.kind {
        Kind::Call => run_call(shared, &item, answer).await,
        Kind::Run => continue_run(shared, &item, &answer).await,
        Kind::Task | Kind::McpCall => {
            let task = shared.journal.library().answer_task(&answer).await.map_err(journal)?;
            match task {
                Some(_) => Ok(Acted {
                    status: "answered",
                    message: match item.kind {
                        Kind::Task => "answered: the MCP server goes on at its client's next \
                                       tasks/get"
                            .to_owned(),
                        _ => "answered: the MCP client's next retry runs with it".to_owned(),
                    },
                    result: None,
                }),
                None => Err(Refused::new(409, "the MCP request was answered already")),
            }
        }
    };
    if acted.is_ok() {
        shared.answers.keep(&item.request_id, record);
    }
    shared.feed.poke();
    acted
}

/// Who gave `answer`, in words.
fn who_of(answer: &Answer) -> String {
    answer.by.as_ref().map_or_else(|| "someone".to_owned(), ToString::to_string)
}

/// The answers this inbox gave lately, to tell a second answer to one request (from another
/// tab, or a retry) what became of the first.
#[derive(Debug, Default)]
pub(crate) struct Answers(std::sync::Mutex<std::collections::VecDeque<(String, String)>>);

impl Answers {
    /// How many are kept.
    const KEPT: usize = 1024;

    fn keep(&self, request_id: &str, how: String) {
        let mut kept = self.0.lock().unwrap_or_else(std::sync::PoisonError::into_inner);
        if kept.len() == Self::KEPT {
            kept.pop_front();
        }
        kept.push_back((request_id.to_owned(), how));
    }

    /// The refusal of a second answer to `request_id`, if this inbox answered it.
    fn earlier(&self, request_id: &str) -> Option<Refused> {
        let kept = self.0.lock().unwrap_or_else(std::sync::PoisonError::into_inner);
        let (_, how) = kept.iter().rev().find(|(id, _)| id == request_id)?;
        Some(Refused::new(
            409,
            format!("request {request_id:?} was already {how}; the first answer stands"),
        ))
    }
}

/// The waiting item `request_id` names: from the feed, or else from the journal now.
async fn find(shared: &Shared, request_id: &str) -> Result<Item, Refused> {
    let (_, known) = shared.feed.snapshot();
    if let Some(item) = known.iter().find(|i| i.request_id == request_id) {
        return Ok(item.clone());
    }
    let now = items::gather(&shared.journal, &shared.registry)
        .await
        .map_err(|e| Refused::new(500, e.to_string()))?;
    now.into_iter().find(|i| i.request_id == request_id).ok_or_else(|| {
        Refused::new(
            404,
            format!("no call waits on request {request_id:?}: it was answered already, or lapsed"),
        )
    })
}

/// The answer `body` gives to `item`.
fn build(item: &Item, body: &AnswerBody) -> Result<Answer, Refused> {
    let id = item.request_id.clone();
    match body.action {
        Action::Decline => {
            let reason = body.reason.as_deref().map(str::trim).filter(|r| !r.is_empty());
            let reason = reason.unwrap_or("declined in the inbox");
            if reason.len() > MAX_REASON {
                return Err(Refused::new(
                    400,
                    format!("the reason is longer than {MAX_REASON} bytes"),
                ));
            }
            Ok(Answer::decline(id, reason))
        }
        Action::Approve if item.form.is_some() => Err(Refused::new(
            400,
            "this request asks for a form: answer it with \"submit\" and its \"data\"",
        )),
        Action::Approve => Ok(Answer::accept(id, Value::Null)),
        Action::Submit => match &body.data {
            Some(data @ Value::Object(_)) => Ok(Answer::accept(id, data.clone())),
            Some(_) => Err(Refused::new(400, "\"data\" must be a JSON object: the form's fields")),
            None => Err(Refused::new(400, "\"submit\" needs \"data\": the form's fields")),
        },
    }
}

/// Records the answer of a journaled call and runs the call with it, as `toolwire approvals
/// resume` does: a declined call is settled as refused, and nothing runs.
async fn run_call(shared: &Shared, item: &Item, answer: Answer) -> Result<Acted, Refused> {
    let library = shared.journal.library();
    let declined = !answer.ok;
    library.answer(answer).await.map_err(journal)?;
    let options = toolwire::CallOptions::new().principal(crate::principal::local_user());
    let receipt = library
        .resume(&shared.registry, &item.request_id)
        .options(options)
        .await
        .map_err(journal)?;
    let text = receipt.result.text().unwrap_or_default();
    let is_error = receipt.result.failure_kind().is_some();
    let message = match (declined, is_error) {
        (true, _) => format!("declined: {} did not run", item.tool.name),
        (false, false) => format!("approved: {} ran", item.tool.name),
        (false, true) => format!("approved: {} ran and failed", item.tool.name),
    };
    let result = serde_json::json!({"text": text, "is_error": is_error});
    Ok(Acted { status: "ran", message, result: Some(result) })
}

/// Records the answer of a call of a paused run; once every call of the run has one, the
/// inbox continues the run with the model it was made with.
async fn continue_run(shared: &Shared, item: &Item, answer: &Answer) -> Result<Acted, Refused> {
    let library = shared.journal.library();
    let run_id = library.answer_run(answer).await.map_err(journal)?;
    let run = library.run(&run_id).await.map_err(journal)?;
    let left =
        run.as_ref().map_or(0, |run| run.waiting.iter().filter(|w| w.answer.is_none()).count());
    if left > 0 {
        return Ok(Acted {
            status: "answered",
            message: format!(
                "answered; run {run_id} goes on once its other waiting calls ({left}) are answered"
            ),
            result: None,
        });
    }
    let Some(run) = run else {
        return Ok(Acted { status: "answered", message: "answered".to_owned(), result: None });
    };
    let (model, base_url, max_turns) =
        crate::commands::journaled::RunFlags::default().or_kept(&run);
    let (shared, id) = (shared.clone(), run_id.clone());
    let tool = item.tool.name.clone();
    // The run goes on in the background, for as long as its model takes; the page learns
    // what became of it from the journal (its calls, and the history).
    tokio::spawn(async move {
        let spec =
            crate::agent::ModelSpec { model: &model, base_url: base_url.as_deref(), max_turns };
        let registry = shared.registry.clone();
        match crate::agent::continue_unattended(registry, &shared.journal, &spec, &id).await {
            Ok(how) => eprintln!("note: the inbox continued run {id} ({tool}): it {how}"),
            Err(error) => eprintln!("error: the inbox could not continue run {id}: {error}"),
        }
        shared.feed.poke();
    });
    Ok(Acted {
        status: "resuming",
        message: format!("answered; the inbox continues run {run_id}"),
        result: None,
    })
}

/// A journal failure, with the status that says what it means.
fn journal(error: JournalError) -> Refused {
    let status = match error.kind() {
        JournalErrorKind::AlreadyAnswered | JournalErrorKind::AlreadyResumed => 409,
        JournalErrorKind::Expired => 410,
        JournalErrorKind::UnknownRequest | JournalErrorKind::UnknownRun => 404,
        JournalErrorKind::AnswerMismatch => 400,
        _ => 500,
    };
    Refused::new(status, error.to_string())
}
