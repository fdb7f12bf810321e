//! `toolwire call`: one call of a manifest tool, with a progress bar and an approval prompt
//! in the terminal.

use std::path::Path;

use serde_json::Value;
use toolwire::{Answer, Receipt, Registry};

use crate::cli::CallArgs;
use crate::exit::{CliError, Exit};
use crate::manifest::Manifest;
use crate::progress::Progress;
use crate::{build, journal, prompt};

/// Runs `toolwire call`.
///
/// # Errors
///
/// A usage error for bad `--args`, a bad manifest, or a journal that cannot be opened.
pub(crate) async fn run(
    manifest: &Path,
    journal_path: Option<&Path>,
    args: CallArgs,
) -> Result<Exit, CliError> {
    let input: Value = serde_json::from_str(&args.args)
        .map_err(|error| CliError::usage(format!("invalid --args: {error}")))?;
    if let Some(call_id) = &args.call_id {
        let journal = journal::open(journal_path).await?;
        let registry =
            build::registry_keyed(Manifest::load(manifest)?, Some(journal.approval_key()))?;
        let receipt = journal.call(&registry, &args.name, input, call_id).await?;
        return Ok(report(&receipt, args.json));
    }
    let registry = build::registry(Manifest::load(manifest)?)?;
    let progress = Progress::new(!args.json);
    let receipt = invoke(&registry, &args, input.clone(), None, &progress).await;
    let receipt = match receipt.result.pending_request() {
        Some(request) => match approval(request, &args)? {
            Some(answer) => invoke(&registry, &args, input, Some(answer), &progress).await,
            None => receipt,
        },
        None => receipt,
    };
    progress.finish();
    Ok(report(&receipt, args.json))
}

async fn invoke(
    registry: &Registry,
    args: &CallArgs,
    input: Value,
    answer: Option<Answer>,
    progress: &Progress,
) -> Receipt {
    let events = progress.clone();
    let mut call = registry.invoke(&args.name, input).on_event(move |event| events.event(&event));
    if let Some(timeout) = args.timeout {
        call = call.timeout(timeout);
    }
    if let Some(answer) = answer {
        call = call.answer(answer);
    }
    call.await
}

/// The answer to a pending request: `--yes`, the terminal's, or none to leave it pending.
fn approval(request: &toolwire::Request, args: &CallArgs) -> Result<Option<Answer>, CliError> {
    if args.yes {
        return Ok(Some(Answer::accept(request.id.clone(), Value::Null)));
    }
    if args.json || !prompt::can_ask() {
        return Ok(None);
    }
    prompt::ask(request).map(Some)
}

/// Prints the receipt, and says how to exit.
pub(crate) fn report(receipt: &Receipt, json: bool) -> Exit {
    let exit = Exit::of(&receipt.result);
    if json {
        match serde_json::to_string_pretty(receipt) {
            Ok(text) => println!("{text}"),
            Err(error) => eprintln!("error: cannot print the receipt: {error}"),
        }
        return exit;
    }
    let result = &receipt.result;
    let text = result.text().unwrap_or_default();
    match exit {
        Exit::Success if text.is_empty() => println!("{}", result.json()),
        Exit::Success => println!("{text}"),
        Exit::Pending => {
            eprintln!("pending: {text}");
            eprintln!("(pass --yes to approve it, or run in a terminal to be asked)");
        }
        _ => eprintln!("error: {text}"),
    }
    exit
}
