//! The agent loop behind `toolwire run` and `toolwire approvals resume RUN_ID`: a model
//! client for PROVIDER:MODEL, driving the manifest's registry, with its events streamed to
//! the terminal and its pending runs kept in the journal.

use std::io::Write;
use std::sync::Arc;

use toolwire::{Answer, Registry};
use toolwire_agent::{Agent, AgentEvent, HttpClient, RunOutcome, StopReason};

use crate::cli::RunArgs;
use crate::exit::{CliError, Exit};
use crate::hint::Places;
use crate::journal::{self, Journal};
use crate::{api_key, prompt};

/// How to reach the model of a run.
pub(crate) struct ModelSpec<'a> {
    /// PROVIDER:MODEL.
    pub(crate) model: &'a str,
    /// Another server speaking the provider's API.
    pub(crate) base_url: Option<&'a str>,
    /// The turn limit, counted from the run's prompt.
    pub(crate) max_turns: u32,
}

/// Runs the agent loop on `args.prompt` with `registry`'s tools (sealed with the journal's
/// approval key): the model's text goes to stdout as it streams, calls and their results to
/// stderr. A call that needs approval is accepted with `--yes`, asked in the terminal when
/// there is one, and otherwise the run is kept in the journal and ends as pending (exit
/// code 3), to be answered and resumed with `toolwire approvals`.
///
/// # Errors
///
/// A usage error for a bad `--model`, a missing API key, or a client that cannot be made; a
/// tool failure (exit 1) when the model's service failed or the run stopped early.
pub(crate) async fn run(places: Places<'_>, args: RunArgs) -> Result<Exit, CliError> {
    let spec = ModelSpec {
        model: &args.model,
        base_url: args.base_url.as_deref(),
        max_turns: args.max_turns,
    };
    let client = client(&spec)?;
    let journal = journal::open(places).await?;
    let (registry, _servers, _policy) = crate::remote::registry(places, Some(&journal)).await?;
    let agent = agent(client, registry, &journal, &spec);
    // Kept with the run, so that `approvals resume` reaches the same server with the limit.
    let meta = serde_json::json!({"base_url": spec.base_url, "max_turns": spec.max_turns});
    let outcome = agent.run(args.prompt.clone()).meta(meta).await;
    settle(&agent, &journal, outcome, args.yes, places).await
}

/// Resumes the paused run `run_id` from the journal with the answers recorded there for it,
/// by the model it was made for unless `spec` names another.
///
/// # Errors
///
/// As [`run`], and a tool failure when the run cannot be resumed (another process holds
/// it, or no answer matches).
pub(crate) async fn resume(
    registry: Registry,
    journal: &Journal,
    spec: &ModelSpec<'_>,
    run_id: &str,
    places: Places<'_>,
) -> Result<Exit, CliError> {
    let agent = agent(client(spec)?, registry, journal, spec);
    let outcome = agent.resume_stored(run_id, []).await.map_err(|e| {
        CliError::with_exit(Exit::ToolFailure, format!("cannot resume run {run_id}: {e}"))
    })?;
    settle(&agent, journal, outcome, false, places).await
}

/// The model client of `spec`, with its API key (see [`api_key`]).
fn client(spec: &ModelSpec<'_>) -> Result<HttpClient, CliError> {
    let invalid = |e| CliError::usage(format!("invalid --model {:?}: {e}", spec.model));
    let mut builder = HttpClient::from_spec(spec.model).map_err(invalid)?;
    let (provider, _) = spec.model.split_once(':').unwrap_or_default();
    let provider = toolwire_agent::parse_provider(provider).map_err(invalid)?;
    let Some(api) = provider.model_api() else {
        return Err(invalid(toolwire_agent::Error::new(
            toolwire_agent::ErrorKind::Config,
            format!("provider {provider} runs no model"),
        )));
    };
    if let Some(key) = api_key::api_key(api, spec.base_url)? {
        builder = builder.api_key(key);
    }
    if let Some(url) = spec.base_url {
        builder = builder.base_url(url.to_owned());
    }
    builder.build().map_err(|e| CliError::usage(format!("cannot make the model client: {e}")))
}

/// Continues the paused run `run_id` for the inbox, unattended: nothing is asked or printed
/// (a call that needs approval again waits in the journal, where the inbox lists it), and
/// the receipts go to the audit log. How it ended, in words.
///
/// # Errors
///
/// A model that cannot be reached with `spec`, or a run that cannot be resumed.
pub(crate) async fn continue_unattended(
    registry: Registry,
    journal: &Journal,
    spec: &ModelSpec<'_>,
    run_id: &str,
) -> Result<String, CliError> {
    let agent = builder(client(spec)?, registry, journal, spec).build();
    let outcome = agent.resume_stored(run_id, []).await.map_err(|e| {
        CliError::with_exit(Exit::ToolFailure, format!("cannot resume run {run_id}: {e}"))
    })?;
    journal.append(&outcome.receipts).await;
    Ok(match &outcome.stop {
        StopReason::Finished(_) => "finished".to_owned(),
        StopReason::Pending => "waits for approval again".to_owned(),
        other => format!("stopped: {other}"),
    })
}

/// The agent of `client` over `registry`, keeping its pending runs in `journal`, showing its
/// events in the terminal.
fn agent(client: HttpClient, registry: Registry, journal: &Journal, spec: &ModelSpec<'_>) -> Agent {
    builder(client, registry, journal, spec).on_event(show).build()
}

/// The agent's settings but for its events.
fn builder(
    client: HttpClient,
    registry: Registry,
    journal: &Journal,
    spec: &ModelSpec<'_>,
) -> toolwire_agent::AgentBuilder {
    Agent::builder(client, registry)
        .max_turns(spec.max_turns)
        .store(Arc::new(journal.runs_store()))
        // An agent run's calls are the agent's, acting for the local user.
        .principal(toolwire::Principal::agent(crate::principal::local_name()))
}

/// Answers the run's approvals here while someone can (`--yes` or a terminal), appends the
/// receipts of its calls to the journal's audit log, and reports how it ended.
async fn settle(
    agent: &Agent,
    journal: &Journal,
    mut outcome: RunOutcome,
    yes: bool,
    places: Places<'_>,
) -> Result<Exit, CliError> {
    journal.append(&outcome.receipts).await;
    while outcome.is_pending() {
        let Some(answers) = approve(&outcome, yes)? else { break };
        let run_id = outcome.state.run_id.clone();
        outcome = agent.resume_stored(&run_id, answers).await.map_err(|e| {
            CliError::with_exit(Exit::ToolFailure, format!("cannot resume the run: {e}"))
        })?;
        journal.append(&outcome.receipts).await;
    }
    finish(&outcome, places)
}

/// Answers for every call the run waits on: all accepted with `--yes`, each asked in a
/// terminal, or `None` when nobody can answer here.
fn approve(outcome: &RunOutcome, yes: bool) -> Result<Option<Vec<Answer>>, CliError> {
    let waiting = outcome.state.requests();
    if yes {
        let accept = |call: &toolwire_agent::PendingCall| prompt::yes(&call.request);
        return waiting.iter().map(accept).collect::<Result<_, _>>().map(Some);
    }
    if !prompt::can_ask() {
        return Ok(None);
    }
    waiting
        .iter()
        .map(|call| prompt::ask(&call.tool, &call.request))
        .collect::<Result<_, _>>()
        .map(Some)
}

/// Prints one event: text to stdout as it comes, the rest to stderr.
fn show(event: &AgentEvent<'_>) {
    match event {
        AgentEvent::TextDelta(text) => {
            print!("{text}");
            let _ = std::io::stdout().flush();
        }
        AgentEvent::CallStarted(call) => eprintln!("\n→ {} {}", call.tool, call.arguments),
        AgentEvent::CallFinished(receipt) if receipt.result.pending_request().is_some() => {
            eprintln!("⏸ {}: waiting for approval", receipt.tool);
        }
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

/// The exit code of how the run ended, with what to do next when it waits.
fn finish(outcome: &RunOutcome, places: Places<'_>) -> Result<Exit, CliError> {
    println!();
    match &outcome.stop {
        StopReason::Finished(_) => Ok(Exit::Success),
        StopReason::Pending => {
            let run_id = &outcome.state.run_id;
            eprintln!("run {run_id} waits for approval, kept in the journal:");
            for call in outcome.state.requests() {
                eprintln!("  {}\t{}\t{}", call.request.id, call.tool, call.request.prompt);
            }
            eprintln!(
                "answer each with `{}` (its request's id or its call's; --decline to decline), \
                 then continue with `{}`",
                places.answer("ID"),
                places.resume(run_id)
            );
            Ok(Exit::Pending)
        }
        other => Err(CliError::with_exit(Exit::ToolFailure, format!("the run stopped: {other}"))),
    }
}
