//! Reaching one server of the manifest: over HTTP, or as a child over stdio, in its sandbox
//! unless the manifest says `sandbox = "none"`.

use std::ffi::OsString;

use toolwire_mcp::client::oauth::TokenStore;
use toolwire_mcp::client::{
    ClientOptions, ConnectErrorKind, Elicitation, ElicitationReply, RemoteServer, ServerSpec,
    StdioConfig,
};
use toolwire_process::launcher::Launcher;
use toolwire_process::sandbox::{LaunchGuard, Policy, Sandbox};

use crate::manifest::{Questions, ServerDef};

/// A live server, and the sandbox guard of a child, kept as long as the connection.
pub(crate) struct Connected {
    pub(crate) remote: RemoteServer,
    pub(crate) guard: Option<LaunchGuard>,
}

/// Connects to `server`; the error says which server and why.
pub(crate) async fn connect(server: &ServerDef) -> Result<Connected, String> {
    let mut options = ClientOptions::new()
        .client_info("toolwire", env!("CARGO_PKG_VERSION"))
        .max_result_bytes(usize::try_from(server.output_limit).unwrap_or(usize::MAX));
    // With no handler, a question becomes a pending result, answered by toolwire's own flow.
    if server.questions == Questions::Decline {
        let name = server.name.clone();
        options = options.on_elicitation(move |asked: Elicitation| {
            eprintln!("note: mcp server {name:?} asked {:?}; declined", asked.message);
            std::future::ready(ElicitationReply::Decline)
        });
    }
    if let Some(timeout) = server.timeout {
        options = options.max_duration(timeout);
    }
    // `concurrency` bounds the calls in flight to the server, and the connections kept.
    if let Some(limit) = server.concurrency {
        options = options.max_in_flight(limit);
    }
    if let Some(protocol) = &server.protocol {
        options = options.protocol_version(protocol);
    }
    // A server over HTTP uses its stored login, if any (`toolwire mcp login`).
    if let Some(dir) = TokenStore::default_dir() {
        options = options.logins(TokenStore::in_dir(dir));
    }
    match (&server.spec, &server.sandbox) {
        (ServerSpec::Stdio(stdio), Sandbox::Policy(policy)) => {
            let (command, guard) = sandboxed(&server.name, stdio, policy)?;
            let remote = RemoteServer::connect_command(&server.name, command, options).await;
            Ok(Connected { remote: remote.map_err(|e| e.to_string())?, guard: Some(guard) })
        }
        (spec, _) => {
            let remote = RemoteServer::connect(&server.name, spec, options).await;
            let remote = remote.map_err(|e| match e.kind() {
                ConnectErrorKind::LoginRequired => {
                    format!("{e}; {}", crate::login::hint(&server.name))
                }
                _ => e.to_string(),
            })?;
            Ok(Connected { remote, guard: None })
        }
    }
}

/// The command that starts `stdio` under `policy`: it sees the variables the manifest lets
/// through (or, for a server of an mcp.json, the inherited ones and its own).
fn sandboxed(
    name: &str,
    stdio: &StdioConfig,
    policy: &Policy,
) -> Result<(tokio::process::Command, LaunchGuard), String> {
    let cwd = match &stdio.cwd {
        Some(cwd) => cwd.clone(),
        None => std::env::current_dir().map_err(|e| format!("mcp server {name:?}: {e}"))?,
    };
    let mut env: Vec<(OsString, OsString)> = Vec::new();
    if !stdio.clear_env {
        env.extend(std::env::vars_os());
    }
    env.extend(stdio.env.iter().map(|(k, v)| (OsString::from(k), OsString::from(v))));
    toolwire_process::sandbox::launch(
        policy,
        &Launcher::CurrentExe,
        &stdio.command,
        &stdio.args,
        &cwd,
        env,
    )
    .map_err(|error| format!("mcp server {name:?} cannot start in its sandbox: {error}"))
}
