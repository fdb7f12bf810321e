//! `toolwire mcp import`: the servers of an `mcp.json`, and the tools each one lists.
//!
//! Reading the configuration is done here; wiring the MCP client of `toolwire-mcp` in is a
//! change to [`list_tools`] alone: connect to each [`Server`] (a child process, or a
//! streamable-HTTP URL), list its tools and print them. Until that client is built in,
//! [`list_tools`] fails with a clear error.

use std::collections::BTreeMap;
use std::path::Path;

use serde::Deserialize;

use crate::exit::{CliError, Exit};

/// An `mcp.json`, as Claude Desktop, Cursor and VS Code write it.
#[derive(Debug, Deserialize)]
#[serde(rename_all = "camelCase")]
pub(crate) struct McpConfig {
    /// The servers, by name.
    pub(crate) mcp_servers: BTreeMap<String, Server>,
}

/// How to reach one MCP server.
#[derive(Debug, Deserialize)]
#[serde(untagged)]
pub(crate) enum Server {
    /// A child process spoken to over stdio.
    Process {
        /// The program.
        command: String,
        /// Its arguments.
        #[serde(default)]
        args: Vec<String>,
        /// Its environment.
        #[serde(default)]
        env: BTreeMap<String, String>,
    },
    /// A streamable-HTTP endpoint.
    Http {
        /// The endpoint's URL.
        url: String,
    },
}

/// Reads the configuration at `path`.
///
/// # Errors
///
/// A usage error naming the file and what is wrong in it.
pub(crate) fn read(path: &Path) -> Result<McpConfig, CliError> {
    let shown = path.display();
    let text = std::fs::read_to_string(path)
        .map_err(|error| CliError::usage(format!("cannot read {shown}: {error}")))?;
    serde_json::from_str(&text)
        .map_err(|error| CliError::usage(format!("invalid MCP configuration {shown}: {error}")))
}

/// Lists the tools of every server in the configuration at `path`.
///
/// # Errors
///
/// A bad configuration; and always, for now: the MCP client is not built in yet.
pub(crate) async fn list_tools(path: &Path) -> Result<Exit, CliError> {
    let config = read(path)?;
    let servers: Vec<String> =
        config.mcp_servers.iter().map(|(name, server)| format!("{name} ({server})")).collect();
    Err(CliError::usage(format!(
        "the MCP client is not built into this toolwire yet (it comes with toolwire-mcp's client); \
         it would list the tools of {} server(s): {}",
        servers.len(),
        servers.join(", ")
    )))
}

impl std::fmt::Display for Server {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Server::Process { command, args, env } => {
                write!(f, "{command}")?;
                args.iter().try_for_each(|arg| write!(f, " {arg}"))?;
                match env.len() {
                    0 => Ok(()),
                    count => write!(f, ", {count} environment variables"),
                }
            }
            Server::Http { url } => write!(f, "{url}"),
        }
    }
}
