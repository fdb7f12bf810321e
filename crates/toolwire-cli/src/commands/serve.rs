//! `toolwire serve`: the manifest's tools over MCP.

use std::sync::Arc;

use toolwire_mcp::server::{HttpOptions, McpServer, serve_http_with};

use crate::cli::ServeArgs;
use crate::exit::{CliError, Exit};
use crate::hint::Places;
use crate::journal;

/// How often the policy's files are read for changes.
const POLICY_POLL: std::time::Duration = std::time::Duration::from_secs(1);

/// Serves until the client leaves (stdio) or the process is stopped (HTTP).
///
/// # Errors
///
/// A bad manifest, a journal that cannot be opened, a token variable that is not set, or the
/// I/O error that ended serving.
pub(crate) async fn run(places: Places<'_>, args: ServeArgs) -> Result<Exit, CliError> {
    // Only a journal asked for: a server keeps no state of its own by default.
    let journal = match places.journal {
        Some(_) => Some(journal::open(places).await?),
        None => None,
    };
    // Its calls' receipts go to the journal's audit log: `toolwire log` and the inbox's
    // history show them.
    let (registry, _servers, policy) =
        crate::remote::registry_audited(places, journal.as_ref()).await?;
    let mut server = McpServer::new(registry).name("toolwire", env!("CARGO_PKG_VERSION"));
    if args.http.is_none() {
        // Over stdio, the client is a program the local user started.
        server = server.principal(crate::principal::local_user());
    }
    // The policy follows its file: a change is put in force at once, and a bad one is
    // refused, keeping the policies in force.
    let _watch = policy.as_ref().map(|policy| {
        policy.watch(POLICY_POLL, |outcome| match outcome {
            Ok(count) => eprintln!("note: policy reloaded: {count} policies in force"),
            Err(error) => {
                eprintln!("error: the changed policy was refused, the one in force stays: {error}")
            }
        })
    });
    if let Some(journal) = &journal {
        // MCP tasks are kept in the journal too: they survive a restart, and servers sharing
        // a PostgreSQL journal serve (and take over) each other's.
        server = server.task_store(Arc::new(journal.library().clone()));
        // So are the calls that wait for input without a task: `approvals answer` answers
        // them, and the client's retry runs with that answer.
        server = server.host_answers(true);
        // The same lease as the journal's calls: how long a stopped server's task is held
        // before another server takes it over.
        if let Some(lease) = places.lease {
            server = server.task_lease(lease);
        }
    }
    if let Some(addr) = &args.inbox {
        // The inbox answers what the journal holds, with the server's own tools.
        if journal.is_none() {
            return Err(CliError::usage(
                "--inbox needs --journal: the inbox lists and answers the calls a journal keeps",
            ));
        }
        let options = crate::inbox::Options {
            addr: addr.clone(),
            users: args.inbox_users.clone(),
            notify: args.notify.clone(),
        };
        let inbox_journal = journal::open(places).await?;
        // A registry of its own, without the server's audit hook: the journal records the
        // calls the inbox resumes itself, and they would be logged twice.
        let (registry, servers, _) = crate::remote::registry(places, Some(&inbox_journal)).await?;
        let serving = crate::inbox::start(inbox_journal, registry, &options).await?;
        tokio::spawn(async move {
            serving.await;
            drop(servers);
        });
    }
    let counted = server.clone();
    crate::interrupt::count_calls(move || counted.calls_running());
    let Some(addr) = args.http else {
        server
            .serve_stdio()
            .await
            .map_err(|error| CliError::usage(format!("serving on stdio failed: {error}")))?;
        return Ok(Exit::Success);
    };
    let mut options = HttpOptions::default();
    if let Some(name) = &args.token_env {
        let token = std::env::var(name).map_err(|_| {
            CliError::usage(format!("the environment variable {name} for --token-env is not set"))
        })?;
        options = options.bearer_token(token);
    }
    if let Some(file) = &args.users {
        options = options.users(crate::users::load(file)?);
    }
    eprintln!("serving MCP at http://{addr}{}", options.path);
    serve_http_with(server, addr.as_str(), options)
        .await
        .map_err(|error| CliError::usage(format!("serving HTTP on {addr} failed: {error}")))?;
    Ok(Exit::Success)
}
