//! `toolwire resolve`: the host's verdict on a call of unknown outcome, recorded in the
//! journal (`Journal::resolve`).

use toolwire::ToolResult;
use toolwire_journal::{CallState, Resolution};

use crate::cli::ResolveArgs;
use crate::exit::{CliError, Exit};
use crate::hint::Places;
use crate::journal;

/// Runs `toolwire resolve`.
///
/// # Errors
///
/// A usage error when the journal holds no such call, or holds it in another state than an
/// unknown outcome; a journal that cannot be opened or written.
pub(crate) async fn run(places: Places<'_>, args: ResolveArgs) -> Result<Exit, CliError> {
    let journal = journal::open(places).await?;
    let id = &args.call_id;
    let Some(record) = journal.record(id).await? else {
        return Err(CliError::usage(format!("the journal holds no call {id:?}")));
    };
    if record.state != CallState::UnknownOutcome {
        let state = shown_state(record.state);
        return Err(CliError::usage(format!(
            "call {id:?} of {:?} is {state}, not of unknown outcome: there is nothing to resolve",
            record.call.tool
        )));
    }
    let (resolution, then) = verdict(&args);
    journal.resolve(id, resolution).await?;
    eprintln!("resolved call {id:?} of {:?}: {then}", record.call.tool);
    Ok(Exit::Success)
}

/// The resolution the flags give, and what happens next.
fn verdict(args: &ResolveArgs) -> (Resolution, &'static str) {
    let text = |default: &str| args.text.clone().unwrap_or_else(|| default.to_owned());
    if args.did_not_run {
        (Resolution::DidNotRun, "it did not take effect; the next call with this id runs it")
    } else if args.failed {
        let result = ToolResult::failure(text("it failed (resolved by hand)"));
        (Resolution::TookEffect(result), "it failed; later calls with this id return the failure")
    } else {
        let result =
            ToolResult::ok(serde_json::Value::Null, text("it succeeded (resolved by hand)"));
        (
            Resolution::TookEffect(result),
            "it succeeded; later calls with this id return that result",
        )
    }
}

fn shown_state(state: CallState) -> &'static str {
    match state {
        CallState::Running => {
            "running (in another process, or in one that died: calling it again with its id, \
             once its lease lapsed, tells)"
        }
        CallState::Completed => "completed",
        CallState::Suspended => "waiting for an approval",
        CallState::Retry => "resolved already (as not run)",
        _ => "in another state",
    }
}
