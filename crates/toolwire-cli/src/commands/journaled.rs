//! `toolwire approvals` and `toolwire log`: the commands that work over the journal.

use toolwire::{Answer, FailureKind};
use toolwire_journal::PausedRun;

use crate::agent::{self, ModelSpec};
use crate::cli::{ApprovalsCommand, DEFAULT_MAX_TURNS, LogArgs};
use crate::exit::{CliError, Exit};
use crate::hint::Places;
use crate::journal::{self, Journal, Resumable};
use crate::report::report;

/// Runs `toolwire approvals list|answer|resume`.
///
/// # Errors
///
/// A journal that cannot be opened or read, an id that names nothing waiting (or several
/// calls), or a bad manifest (for `resume`).
pub(crate) async fn approvals(
    places: Places<'_>,
    command: ApprovalsCommand,
) -> Result<Exit, CliError> {
    let journal = journal::open(places).await?;
    match command {
        ApprovalsCommand::List => list(&journal).await,
        ApprovalsCommand::Answer { id, decline, reason, data } => {
            let answer = match (decline, data) {
                (true, _) => Answer::decline(&id, reason.unwrap_or_else(|| "declined".to_owned())),
                (false, None) => Answer::accept(&id, serde_json::Value::Null),
                (false, Some(data)) => {
                    let data = serde_json::from_str(&data)
                        .map_err(|error| CliError::usage(format!("invalid --data: {error}")))?;
                    Answer::accept(&id, data)
                }
            };
            // The journal records who answered: the local user.
            let answer = answer.by(crate::principal::local_user());
            let how = if answer.ok { "accepted" } else { "declined" };
            let waiter = journal.answer(&id, answer).await?;
            eprintln!("{how} {waiter}");
            Ok(Exit::Success)
        }
        ApprovalsCommand::Resume { id, model, base_url, max_turns } => {
            let (registry, _servers, _policy) =
                crate::remote::registry(places, Some(&journal)).await?;
            let (run, through) = match journal.resumable(&id).await? {
                Resumable::Call(waiter) => {
                    eprintln!("resuming {waiter}");
                    let receipt = journal.resume_call(&registry, &waiter).await?;
                    return Ok(report(&receipt, false, places));
                }
                Resumable::Run { run, through } => (run, through),
            };
            match through {
                Some(waiter) => eprintln!("resuming run {}, which waits on {waiter}", run.run_id),
                None => eprintln!("resuming run {}", run.run_id),
            }
            let spec_of = RunFlags { model, base_url, max_turns };
            let (model, base_url, max_turns) = spec_of.or_kept(&run);
            let spec = ModelSpec { model: &model, base_url: base_url.as_deref(), max_turns };
            agent::resume(registry, &journal, &spec, &run.run_id, places).await
        }
    }
}

/// Lists the requests that wait for an answer, one per line.
async fn list(journal: &Journal) -> Result<Exit, CliError> {
    for waiting in journal.waiting().await? {
        let request = &waiting.request;
        println!("{}\t{}\t{}\t{}", request.id, waiting.call_id, waiting.tool, request.prompt);
    }
    for run in journal.paused_runs().await? {
        for wait in run.waiting.iter().filter(|wait| wait.answer.is_none()) {
            println!(
                "{}\t{}\t{}\t{}\trun {}",
                wait.request.id, wait.call_id, wait.tool, wait.request.prompt, run.run_id
            );
        }
    }
    for task in journal.waiting_tasks().await? {
        if let toolwire::tasks::TaskState::InputRequired { request } = &task.state {
            // A call an MCP client retries itself, or a task the client follows.
            let whose = match toolwire_mcp::server::is_parked_call(&task.id) {
                true => "mcp call (its client's retry runs it)".to_owned(),
                false => format!("mcp task {}", task.id),
            };
            println!(
                "{}\t{}\t{}\t{}\t{whose}",
                request.id, task.call_id, task.tool, request.prompt
            );
        }
    }
    Ok(Exit::Success)
}

/// The flags of `approvals resume` for a run.
#[derive(Debug, Default)]
pub(crate) struct RunFlags {
    pub(crate) model: Option<String>,
    pub(crate) base_url: Option<String>,
    pub(crate) max_turns: Option<u32>,
}

impl RunFlags {
    /// The model, base URL and turn limit: each as given, or else as `toolwire run` kept
    /// them with the run.
    pub(crate) fn or_kept(self, run: &PausedRun) -> (String, Option<String>, u32) {
        let meta = run.state.get("meta");
        let kept = |key: &str| meta.and_then(|m| m.get(key));
        let model = self.model.unwrap_or_else(|| run.label.clone());
        let base_url =
            self.base_url.or_else(|| kept("base_url").and_then(|v| v.as_str()).map(str::to_owned));
        let kept_turns = kept("max_turns").and_then(|v| v.as_u64());
        let max_turns = (self.max_turns)
            .or_else(|| kept_turns.and_then(|n| u32::try_from(n).ok()))
            .unwrap_or(DEFAULT_MAX_TURNS);
        (model, base_url, max_turns)
    }
}

/// Runs `toolwire log`.
///
/// # Errors
///
/// A journal that cannot be opened or read.
pub(crate) async fn log(places: Places<'_>, args: LogArgs) -> Result<Exit, CliError> {
    let journal = journal::open(places).await?;
    for receipt in journal.log(args.limit, args.tool.as_deref()).await? {
        if args.json {
            println!("{}", serde_json::to_string(&receipt).map_err(CliError::usage)?);
        } else {
            let call_id = receipt.call_id.as_ref().map_or("-", |id| id.as_str());
            let who =
                receipt.principal.as_ref().map_or_else(|| "-".to_owned(), ToString::to_string);
            println!(
                "{}\t{}\t{}\t{call_id}\t{who}\t{}\t{}",
                humantime::format_rfc3339(receipt.started_at),
                receipt.invocation_id,
                receipt.tool,
                decided(receipt.policy.as_deref()),
                outcome(&receipt.result)
            );
        }
    }
    Ok(Exit::Success)
}

/// What the policy step decided and which policies decided it: `denied by no-prod`,
/// `allowed`, or `-` when the call had no policy step.
fn decided(record: Option<&toolwire::policy::PolicyRecord>) -> String {
    match record {
        None => "-".to_owned(),
        Some(record) if record.policies.is_empty() => record.outcome.to_string(),
        Some(record) => format!("{} by {}", record.outcome, record.policies.join(",")),
    }
}

/// A receipt's outcome in a word: `ok`, `pending`, `unknown` or `failed`.
pub(crate) fn outcome(result: &toolwire::ToolResult) -> &'static str {
    match result.failure_kind() {
        None => "ok",
        Some(FailureKind::Pending) => "pending",
        Some(FailureKind::UnknownOutcome) => "unknown",
        Some(_) => "failed",
    }
}
