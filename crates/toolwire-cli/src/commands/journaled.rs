//! `toolwire approvals` and `toolwire log`: the commands that work over the journal.

use toolwire::{Answer, FailureKind};

use crate::agent::{self, ModelSpec};
use crate::build;
use crate::cli::{ApprovalsCommand, DEFAULT_MAX_TURNS, LogArgs};
use crate::exit::{CliError, Exit};
use crate::hint::Places;
use crate::journal;
use crate::manifest::Manifest;
use crate::report::report;

/// Runs `toolwire approvals list|answer|resume`.
///
/// # Errors
///
/// A journal that cannot be opened or read, or a bad manifest (for `resume`).
pub(crate) async fn approvals(
    places: Places<'_>,
    command: ApprovalsCommand,
) -> Result<Exit, CliError> {
    let journal = journal::open(places).await?;
    match command {
        ApprovalsCommand::List => {
            for waiting in journal.waiting().await? {
                println!(
                    "{}\t{}\t{}\t{}",
                    waiting.request.id, waiting.call_id, waiting.tool, waiting.request.prompt
                );
            }
            for run in journal.paused_runs().await? {
                for wait in run.waiting.iter().filter(|wait| wait.answer.is_none()) {
                    println!(
                        "{}\t{}\t{}\t{}\trun {}",
                        wait.request.id, wait.call_id, wait.tool, wait.request.prompt, run.run_id
                    );
                }
            }
            Ok(Exit::Success)
        }
        ApprovalsCommand::Answer { id, decline, reason } => {
            let answer = match decline {
                true => Answer::decline(id, reason.unwrap_or_else(|| "declined".to_owned())),
                false => Answer::accept(id, serde_json::Value::Null),
            };
            journal.answer(answer).await?;
            Ok(Exit::Success)
        }
        ApprovalsCommand::Resume { id, model, base_url, max_turns } => {
            let registry = build::registry_keyed(
                Manifest::load(places.manifest)?,
                Some(journal.approval_key()),
            )?;
            let Some(run) = journal.paused_run(&id).await? else {
                let receipt = journal.resume(&registry, &id).await?;
                return Ok(report(&receipt, false, places));
            };
            // What `toolwire run` kept with the run: how it reached the model, its limit.
            let meta = run.state.get("meta");
            let kept = |key: &str| meta.and_then(|m| m.get(key));
            let model = model.unwrap_or(run.label);
            let base_url =
                base_url.or_else(|| kept("base_url").and_then(|v| v.as_str()).map(str::to_owned));
            let kept_turns = kept("max_turns").and_then(|v| v.as_u64());
            let max_turns = max_turns
                .or_else(|| kept_turns.and_then(|n| u32::try_from(n).ok()))
                .unwrap_or(DEFAULT_MAX_TURNS);
            let spec = ModelSpec { model: &model, base_url: base_url.as_deref(), max_turns };
            agent::resume(registry, &journal, &spec, &id).await
        }
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
            println!(
                "{}\t{}\t{}\t{call_id}\t{}",
                humantime::format_rfc3339(receipt.started_at),
                receipt.invocation_id,
                receipt.tool,
                outcome(&receipt.result)
            );
        }
    }
    Ok(Exit::Success)
}

/// A receipt's outcome in a word: `ok`, `pending`, `unknown` or `failed`.
fn outcome(result: &toolwire::ToolResult) -> &'static str {
    match result.failure_kind() {
        None => "ok",
        Some(FailureKind::Pending) => "pending",
        Some(FailureKind::UnknownOutcome) => "unknown",
        Some(_) => "failed",
    }
}
