//! How a call's receipt is shown: its result on stdout (or the whole receipt as JSON), and
//! for a call that waits or whose outcome is unknown, the commands that settle it.

use std::path::PathBuf;

use toolwire::Receipt;

use crate::exit::Exit;
use crate::hint::Places;

/// Prints the receipt, and says how to exit.
pub(crate) fn report(receipt: &Receipt, json: bool, places: Places<'_>) -> Exit {
    report_saved(receipt, json, places, &[])
}

/// [`report`], naming where each part was saved (`--save`).
pub(crate) fn report_saved(
    receipt: &Receipt,
    json: bool,
    places: Places<'_>,
    saved: &[Option<PathBuf>],
) -> Exit {
    let exit = Exit::of(&receipt.result);
    if json {
        match serde_json::to_string_pretty(receipt) {
            Ok(text) => println!("{text}"),
            Err(error) => eprintln!("error: cannot print the receipt: {error}"),
        }
    } else {
        show(receipt, exit, saved);
    }
    if let Some(call_id) = receipt.call_id.as_ref().map(|id| id.as_str()) {
        let form = receipt.result.pending_request().and_then(crate::form::fields);
        if let Some(fields) = form {
            let names: Vec<&str> = fields.keys().map(String::as_str).collect();
            eprintln!("(the answer is a form: --data '{{...}}' with {})", names.join(", "));
        }
        next_steps(call_id, exit, places);
    } else if exit == Exit::Pending && !json {
        eprintln!("(pass --yes to approve it, or run in a terminal to be asked)");
    }
    exit
}

/// The result: its text (or JSON) on stdout, then a line per part; a failure's text on
/// stderr.
fn show(receipt: &Receipt, exit: Exit, saved: &[Option<PathBuf>]) {
    let result = &receipt.result;
    let text = result.text().unwrap_or_default();
    if exit == Exit::Success && !result.parts().is_empty() {
        if !text.is_empty() {
            println!("{text}");
        }
        for (index, part) in result.parts().iter().enumerate() {
            let path = saved.get(index).and_then(Option::as_deref);
            println!("{}", crate::parts::line(part, path));
        }
        return;
    }
    match exit {
        Exit::Success if text.is_empty() => println!("{}", result.json()),
        Exit::Success => println!("{text}"),
        Exit::Pending => eprintln!("pending: {text}"),
        _ => eprintln!("error: {text}"),
    }
}

/// What settles a journaled call that waits, or whose outcome is unknown.
fn next_steps(call_id: &str, exit: Exit, places: Places<'_>) {
    match exit {
        Exit::Pending => eprintln!(
            "(call {call_id:?} waits in the journal: approve it with `{}` (or decline it with \
             --decline), then run it with `{}`; or call again with --yes)",
            places.answer(call_id),
            places.resume(call_id)
        ),
        Exit::UnknownOutcome => eprintln!(
            "(settle it with `{}` if it took effect, `{}` if it took effect and failed, or `{}` \
             if it did not, to run it on the next call)",
            places.resolve(call_id, "--succeeded"),
            places.resolve(call_id, "--failed"),
            places.resolve(call_id, "--did-not-run")
        ),
        _ => {}
    }
}
