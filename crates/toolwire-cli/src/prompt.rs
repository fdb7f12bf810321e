//! The approval prompt of `toolwire call` and `toolwire run`, in the terminal, and what
//! `--yes` answers instead.

use std::io::IsTerminal;

use dialoguer::Confirm;
use toolwire::{Answer, Request};

use crate::exit::CliError;
use crate::form;

/// Whether a human can be asked: stdin and stderr are both terminals.
pub(crate) fn can_ask() -> bool {
    std::io::stdin().is_terminal() && std::io::stderr().is_terminal()
}

/// The answer `--yes` gives: an approval accepted, or a server's form filled with its
/// defaults.
///
/// # Errors
///
/// A form with a required field that has no default.
pub(crate) fn yes(request: &Request) -> Result<Answer, CliError> {
    let content = form::defaults(request).map_err(CliError::usage)?;
    Ok(Answer::accept(request.id.clone(), content))
}

/// Shows the request and what the call would do, and asks to allow it. `n`, Enter and Escape
/// decline. A server's form is asked field by field instead.
///
/// Only toolwire's own approvals (kind `approval`) are worded by toolwire: any other request
/// of a call of `tool` is an MCP server's question, shown as one, so that a server cannot
/// pass its words off as toolwire's.
///
/// # Errors
///
/// When the terminal cannot be read.
pub(crate) fn ask(tool: &str, request: &Request) -> Result<Answer, CliError> {
    if request.kind != "approval" {
        eprintln!("the mcp server of {tool:?} asks, in its own words:");
    }
    if let Some(url) = &request.url {
        eprintln!("it sends you to {url}");
    }
    if let Some(fields) = form::fields(request) {
        return form::ask(request, fields);
    }
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
