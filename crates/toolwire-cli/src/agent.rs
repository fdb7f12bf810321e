//! The agent loop behind `toolwire run`: a model client for PROVIDER:MODEL, driving the
//! manifest's registry, with its events streamed to the terminal.

use std::io::Write;

use toolwire::{Answer, Registry};
use toolwire_agent::{Agent, AgentEvent, HttpClient, RunOutcome, StopReason};

use crate::cli::RunArgs;
use crate::exit::{CliError, Exit};
use crate::prompt;

/// Runs the agent loop on `args.prompt` with `registry`'s tools: the model's text goes to
/// stdout as it streams, calls and their results to stderr. A call that needs approval is
/// accepted with `--yes`, asked in the terminal when there is one, and otherwise ends the run
/// as pending (exit code 3).
///
/// # Errors
///
/// A usage error for a bad `--model` or a client that cannot be made (a missing API key); a
/// tool failure (exit 1) when the model's service failed or the run stopped early.
pub(crate) async fn run(registry: Registry, args: RunArgs) -> Result<Exit, CliError> {
    let mut builder = HttpClient::from_spec(&args.model)
        .map_err(|e| CliError::usage(format!("invalid --model {:?}: {e}", args.model)))?
        .api_key_from_env();
    if let Some(url) = &args.base_url {
        builder = builder.base_url(url.clone());
    }
    let client = builder
        .build()
        .map_err(|e| CliError::usage(format!("cannot make the model client: {e}")))?;
    let agent = Agent::builder(client, registry).max_turns(args.max_turns).on_event(show).build();
    let mut outcome = agent.run(args.prompt.clone()).await;
    while outcome.is_pending() {
        let Some(answers) = approve(&outcome, args.yes)? else { break };
        outcome = agent.resume(outcome.state, answers).await.map_err(|e| {
            CliError::with_exit(Exit::ToolFailure, format!("cannot resume the run: {e}"))
        })?;
    }
    finish(&outcome)
}

/// Answers for every call the run waits on: all accepted with `--yes`, each asked in a
/// terminal, or `None` when nobody can answer here.
fn approve(outcome: &RunOutcome, yes: bool) -> Result<Option<Vec<Answer>>, CliError> {
    let waiting = outcome.state.requests();
    if yes {
        let accept = |call: &toolwire_agent::PendingCall| {
            Answer::accept(call.request.id.clone(), serde_json::Value::Null)
        };
        return Ok(Some(waiting.iter().map(accept).collect()));
    }
    if !prompt::can_ask() {
        return Ok(None);
    }
    waiting.iter().map(|call| prompt::ask(&call.request)).collect::<Result<_, _>>().map(Some)
}

/// Prints one event: text to stdout as it comes, the rest to stderr.
fn show(event: &AgentEvent<'_>) {
    match event {
        AgentEvent::TextDelta(text) => {
            print!("{text}");
            let _ = std::io::stdout().flush();
        }
        AgentEvent::CallStarted(call) => eprintln!("\n→ {} {}", call.tool, call.arguments),
        AgentEvent::CallFinished(receipt) => {
            let text = receipt.result.text().unwrap_or_default();
            let mark = if receipt.result.is_success() { "✓" } else { "✗" };
            eprintln!("{mark} {}: {}", receipt.tool, first_line(text));
        }
        AgentEvent::ApprovalNeeded { request, .. } => eprintln!("? {}", request.prompt),
        _ => {}
    }
}

fn first_line(text: &str) -> String {
    let line = text.lines().next().unwrap_or_default();
    line.chars().take(160).collect()
}

/// The exit code of how the run ended, with a line saying why when it did not finish.
fn finish(outcome: &RunOutcome) -> Result<Exit, CliError> {
    println!();
    match &outcome.stop {
        StopReason::Finished(_) => Ok(Exit::Success),
        StopReason::Pending => {
            eprintln!(
                "the run waits for an approval; rerun with --yes, or in a terminal to answer"
            );
            Ok(Exit::Pending)
        }
        other => Err(CliError::with_exit(Exit::ToolFailure, format!("the run stopped: {other}"))),
    }
}
