//! `toolwire mcp import`: connects to every server of an `mcp.json` (a child process over
//! stdio, started in the default sandbox as a manifest's server is, or a streamable-HTTP
//! URL), and lists the tools each one would import, under the names they get
//! (`server__tool`).

use std::path::Path;

use toolwire_mcp::client::{Import, McpConfig};

use crate::exit::{CliError, Exit};
use crate::manifest::ServerDef;

/// Lists the tools of every server in the configuration at `path`: one line per tool
/// (`name`, a tab, its description), or with `json` their MCP definitions as one JSON array.
/// A server that cannot be reached is reported on stderr, and the others are still listed.
///
/// # Errors
///
/// A usage error when the configuration cannot be read. The exit code is 1 when a server
/// could not be reached, 0 otherwise.
pub(crate) async fn list_tools(path: &Path, json: bool) -> Result<Exit, CliError> {
    let config = McpConfig::from_path(path)
        .map_err(|error| CliError::usage(format!("{}: {error}", path.display())))?;
    let mut exit = Exit::Success;
    let mut definitions = Vec::new();
    for (name, spec) in config.servers() {
        // Reached as a manifest's server is: a child runs in the default sandbox.
        match crate::remote::connect(&ServerDef::plain(name, spec.clone())).await {
            Ok(connected) => {
                let import = connected.remote.import();
                report(name, &import, json, &mut definitions);
                connected.remote.close().await;
            }
            Err(error) => {
                eprintln!("error: {error}");
                exit = Exit::ToolFailure;
            }
        }
    }
    if json {
        let text = serde_json::to_string_pretty(&definitions).map_err(CliError::usage)?;
        println!("{text}");
    }
    Ok(exit)
}

/// Prints one server's tools (or keeps their definitions for `json`), and what was skipped.
fn report(server: &str, import: &Import, json: bool, definitions: &mut Vec<serde_json::Value>) {
    for tool in &import.tools {
        if json {
            definitions.push(tool.to_mcp().clone());
        } else {
            println!("{}\t{}", tool.name(), tool.description().unwrap_or_default());
        }
    }
    for skipped in &import.skipped {
        eprintln!("warning: {server}: skipped {:?}: {}", skipped.tool, skipped.reason);
    }
}
