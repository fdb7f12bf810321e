//! The approval prompt of `toolwire call`, in the terminal.

use std::io::IsTerminal;

use dialoguer::Confirm;
use toolwire::{Answer, Request};

use crate::exit::CliError;

/// Whether a human can be asked: stdin and stderr are both terminals.
pub(crate) fn can_ask() -> bool {
    std::io::stdin().is_terminal() && std::io::stderr().is_terminal()
}

/// Shows the request and what the call would do, and asks to allow it. `n`, Enter and Escape
/// decline.
///
/// # Errors
///
/// When the terminal cannot be read.
pub(crate) fn ask(request: &Request) -> Result<Answer, CliError> {
    if let Some(arguments) = request.data.as_ref().and_then(|data| data.get("arguments")) {
        eprintln!("arguments: {arguments}");
    }
    let allowed = Confirm::new()
        .with_prompt(&request.prompt)
        .default(false)
        .interact_opt()
        .map_err(|error| CliError::usage(format!("cannot ask in the terminal: {error}")))?;
    Ok(match allowed {
        Some(true) => Answer::accept(request.id.clone(), serde_json::Value::Null),
        _ => Answer::decline(request.id.clone(), "declined in the terminal"),
    })
}
