//! `toolwire call`: one call of a manifest tool, with a progress bar and an approval prompt
//! in the terminal.

use serde_json::Value;
use toolwire::{Answer, Receipt, Registry};

use crate::cli::CallArgs;
use crate::exit::{CliError, Exit};
use crate::hint::Places;
use crate::progress::Progress;
use crate::report::report_saved;
use crate::{journal, prompt, remote};

/// Runs `toolwire call`.
///
/// # Errors
///
/// A usage error for bad `--args`, a bad manifest, or a journal that cannot be opened.
pub(crate) async fn run(places: Places<'_>, args: CallArgs) -> Result<Exit, CliError> {
    let input: Value = serde_json::from_str(&args.args)
        .map_err(|error| CliError::usage(format!("invalid --args: {error}")))?;
    if let Some(call_id) = &args.call_id {
        return journaled(places, &args, input, call_id).await;
    }
    let (registry, servers, _policy) = remote::registry(places, None).await?;
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
    servers.close().await;
    finish(&receipt, &args, places)
}

/// Saves the parts (`--save`) and reports the receipt; a part that cannot be saved is an
/// error after the receipt is shown, so the result is not lost.
fn finish(receipt: &Receipt, args: &CallArgs, places: Places<'_>) -> Result<Exit, CliError> {
    let Some(dir) = &args.save else { return Ok(report_saved(receipt, args.json, places, &[])) };
    match crate::parts::save(&receipt.result, dir) {
        Ok(saved) => Ok(report_saved(receipt, args.json, places, &saved)),
        Err(why) => {
            report_saved(receipt, args.json, places, &[]);
            Err(CliError::usage(format!("--save: {why}")))
        }
    }
}

/// The call through the journal under `call_id`; one that waits for an approval is
/// approved (`--yes`, or in the terminal) and run at once.
async fn journaled(
    places: Places<'_>,
    args: &CallArgs,
    input: Value,
    call_id: &str,
) -> Result<Exit, CliError> {
    let journal = journal::open(places).await?;
    let (registry, servers, _policy) = remote::registry(places, Some(&journal)).await?;
    let mut receipt = journal.call(&registry, &args.name, input, call_id, args.timeout).await?;
    if let Some(request) = receipt.result.pending_request()
        && let Some(answer) = approval(request, args)?
    {
        receipt = journal.answer_and_resume(&registry, answer).await?;
    }
    servers.close().await;
    finish(&receipt, args, places)
}

async fn invoke(
    registry: &Registry,
    args: &CallArgs,
    input: Value,
    answer: Option<Answer>,
    progress: &Progress,
) -> Receipt {
    let events = progress.clone();
    let mut call = registry
        .invoke(&args.name, input)
        .principal(crate::principal::local_user())
        .on_event(move |event| events.event(&event));
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
        return prompt::yes(request).map(Some);
    }
    if args.json || !prompt::can_ask() {
        return Ok(None);
    }
    prompt::ask(&args.name, request).map(Some)
}
