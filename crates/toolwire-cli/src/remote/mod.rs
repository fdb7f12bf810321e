//! The manifest's MCP servers as a source of tools: each is reached, its tools imported as
//! the manifest says (prefix, allow and deny lists, approvals, the manifest's hints in place
//! of the server's), and checked against `toolwire.lock`.
//!
//! - A tool pinned as listed is imported.
//! - A pinned tool whose definition changed is replaced by one whose every call is refused,
//!   naming the parts that changed, until `toolwire mcp accept` pins it again.
//! - A tool that is not pinned is left out (or pinned at once, for a server with
//!   `accept_new`).
//! - The pinned tools of a server that cannot be reached fail each call with the reason.
//! - A server's own question during a call (a 2026-07-28 `InputRequiredResult`) is a pending
//!   result of that call, answered by whoever answers toolwire's own requests (see
//!   [`Questions`](crate::manifest::Questions)), unless the server says `questions =
//!   "decline"`.

mod accept;
mod connect;
mod lock;
mod stand_in;
mod verdict;

use toolwire::Tool;
use toolwire_mcp::client::{Import, ImportOptions, RemoteServer};

pub(crate) use accept::accept;
pub(crate) use connect::connect;
pub(crate) use lock::{LOCK_FILE, LockFile};
pub(crate) use verdict::{Shown, Verdict};

use crate::exit::CliError;
use crate::manifest::{Manifest, ServerDef};

/// What the manifest's servers give: the tools to register, and the live connections.
#[derive(Default)]
pub(crate) struct Imported {
    pub(crate) tools: Vec<Tool>,
    pub(crate) servers: Vec<RemoteServer>,
    /// The tools of servers that set `defer_loading`, each with the server's setting.
    pub(crate) deferral: Vec<(String, bool)>,
    /// The sandboxes of the servers started as children, removed when they are dropped.
    guards: Vec<toolwire_process::sandbox::LaunchGuard>,
}

impl Imported {
    /// The tools to register, and their servers' catalog settings, taken out; the
    /// connections stay, to close at the end.
    pub(crate) fn take_tools(&mut self) -> (Vec<Tool>, Vec<(String, bool)>) {
        (std::mem::take(&mut self.tools), std::mem::take(&mut self.deferral))
    }

    /// Closes every connection (stopping the servers started as children).
    pub(crate) async fn close(self) {
        for server in self.servers {
            server.close().await;
        }
        drop(self.guards);
    }
}

/// The registry of the manifest at `places.manifest`: its own tools and its MCP servers',
/// sealed for `journal` when given; with the live connections, to close at the end, and the
/// manifest's Cedar policy, if it has one (to reload it).
///
/// # Errors
///
/// A bad manifest or lock file, or two tools with one name.
pub(crate) async fn registry(
    places: crate::hint::Places<'_>,
    journal: Option<&crate::journal::Journal>,
) -> Result<(toolwire::Registry, Imported, Option<toolwire_cedar::CedarPolicy>), CliError> {
    registry_for(places, journal.map(|journal| (journal, crate::build::Audit::Caller))).await
}

/// [`registry`], whose every receipt also goes to `journal`'s audit log: for `serve`, whose
/// calls (unlike the journal's own, which it records itself) would otherwise leave none.
///
/// # Errors
///
/// As [`registry`].
pub(crate) async fn registry_audited(
    places: crate::hint::Places<'_>,
    journal: Option<&crate::journal::Journal>,
) -> Result<(toolwire::Registry, Imported, Option<toolwire_cedar::CedarPolicy>), CliError> {
    registry_for(places, journal.map(|journal| (journal, crate::build::Audit::Registry))).await
}

async fn registry_for(
    places: crate::hint::Places<'_>,
    journal: Option<(&crate::journal::Journal, crate::build::Audit)>,
) -> Result<(toolwire::Registry, Imported, Option<toolwire_cedar::CedarPolicy>), CliError> {
    let mut manifest = Manifest::load(places.manifest)?;
    let guarded = crate::manifest::Guarded::of(&manifest, places.manifest, places.journal);
    manifest.guard(&guarded);
    let mut imported = load(places.manifest, &manifest).await?;
    let (tools, deferral) = imported.take_tools();
    let (registry, policy) = crate::build::registry_with(manifest, journal, tools, deferral)?;
    Ok((registry, imported, policy))
}

/// The tools of the servers of the manifest at `path` (as loaded into `manifest`), checked
/// against the lock file beside it.
///
/// # Errors
///
/// As [`import`].
pub(crate) async fn load(
    path: &std::path::Path,
    manifest: &Manifest,
) -> Result<Imported, CliError> {
    if manifest.servers.is_empty() {
        return Ok(Imported::default());
    }
    let mut lock = LockFile::beside(path).map_err(CliError::usage)?;
    import(manifest, &mut lock).await
}

/// Reaches every server of `manifest` and imports its tools as `lock` allows, warning on
/// stderr about what was left out and why. With `accept_new` servers, newly pinned tools are
/// written to the lock file.
///
/// # Errors
///
/// When the lock file cannot be written.
pub(crate) async fn import(manifest: &Manifest, lock: &mut LockFile) -> Result<Imported, CliError> {
    let (imported, verdicts) = survey(manifest, lock).await;
    for (server, verdict) in &verdicts {
        if verdict.warns() {
            eprintln!("warning: {}", Shown(server, verdict));
        }
    }
    if verdicts.iter().any(|(_, verdict)| matches!(verdict, Verdict::PinnedNew { .. })) {
        lock.save().map_err(CliError::usage)?;
    }
    Ok(imported)
}

/// Reaches every server of `manifest` and imports what `lock` allows, pinning new tools of
/// `accept_new` servers in `lock` (not saved): the tools, and what became of each, by server.
pub(crate) async fn survey(
    manifest: &Manifest,
    lock: &mut LockFile,
) -> (Imported, Vec<(String, Verdict)>) {
    let mut imported = Imported::default();
    let mut verdicts = Vec::new();
    let connections = connect_all(&manifest.servers).await;
    for (server, connection) in manifest.servers.iter().zip(connections) {
        let mut found = Vec::new();
        let before = imported.tools.len();
        match connection {
            Ok(connected) => {
                let import = connected.remote.import_with(&options(server));
                admit(server, import, lock, &mut imported.tools, &mut found);
                imported.servers.push(connected.remote);
                imported.guards.extend(connected.guard);
            }
            Err(error) => {
                for entry in lock.of_server(&server.name) {
                    let name = format!("{}{}", server.prefix, entry.tool);
                    let why = format!("mcp server {:?} could not be reached: {error}", server.name);
                    imported.tools.extend(stand_in::refusing(&name, why));
                }
                found.push(Verdict::Unreachable { error });
            }
        }
        if let Some(defer) = server.defer_loading {
            let added = imported.tools.get(before..).unwrap_or_default();
            imported.deferral.extend(added.iter().map(|tool| (tool.name().to_owned(), defer)));
        }
        verdicts.extend(found.into_iter().map(|verdict| (server.name.clone(), verdict)));
    }
    (imported, verdicts)
}

/// Connects to every server at once; the results in the servers' order.
async fn connect_all(servers: &[ServerDef]) -> Vec<Result<connect::Connected, String>> {
    let mut tasks = tokio::task::JoinSet::new();
    for (index, server) in servers.iter().enumerate() {
        let server = server.clone();
        tasks.spawn(async move { (index, connect::connect(&server).await) });
    }
    let mut results: Vec<_> = servers.iter().map(|_| None).collect();
    while let Some(joined) = tasks.join_next().await {
        if let Ok((index, result)) = joined
            && let Some(slot) = results.get_mut(index)
        {
            *slot = Some(result);
        }
    }
    results
        .into_iter()
        .zip(servers)
        .map(|(result, server)| {
            result.unwrap_or_else(|| {
                Err(format!("mcp server {:?}: the connecting task panicked", server.name))
            })
        })
        .collect()
}

/// How `server`'s tools are imported.
pub(crate) fn options(server: &ServerDef) -> ImportOptions {
    let mut options = ImportOptions::new().prefix(&server.prefix).hints(server.hints.clone());
    options.needs_approval.clone_from(&server.needs_approval);
    options.all_need_approval = server.all_need_approval;
    options.concurrency = server.concurrency;
    options
}

/// Keeps the tools of `import` that the manifest allows and the lock pins, in `tools`,
/// saying what became of each in `verdicts`.
fn admit(
    server: &ServerDef,
    import: Import,
    lock: &mut LockFile,
    tools: &mut Vec<Tool>,
    verdicts: &mut Vec<Verdict>,
) {
    for skipped in &import.skipped {
        let (tool, reason) = (skipped.tool.clone(), skipped.reason.clone());
        verdicts.push(Verdict::Unusable { tool, reason });
    }
    for pin in &import.pins {
        if !server.keeps(&pin.tool) {
            verdicts.push(Verdict::Filtered { tool: pin.tool.clone() });
            continue;
        }
        let Some(tool) = import.tools.iter().find(|tool| tool.name() == pin.name) else { continue };
        let name = pin.name.clone();
        match lock.get(&server.name, &pin.tool) {
            Some(entry) if entry.digest == pin.digest => {
                tools.push(tool.clone());
                verdicts.push(Verdict::Imported { name });
            }
            Some(entry) => {
                let parts = entry.changes(pin).join(", ");
                let why = format!(
                    "mcp server {:?}: tool {:?} changed since it was pinned in {} ({parts}); \
                     its calls are refused until `toolwire mcp accept {name}` after a review",
                    server.name,
                    pin.tool,
                    lock.path().display(),
                );
                tools.extend(stand_in::refusing(&name, why.clone()));
                verdicts.push(Verdict::Changed { name, why });
            }
            None if server.accept_new => {
                lock.put(lock::Locked::of(&server.name, pin));
                tools.push(tool.clone());
                verdicts.push(Verdict::PinnedNew { name });
            }
            None => verdicts.push(Verdict::New { tool: pin.tool.clone(), name }),
        }
    }
    let listed: Vec<&str> = import.pins.iter().map(|pin| pin.tool.as_str()).collect();
    for entry in lock.of_server(&server.name) {
        if !listed.contains(&entry.tool.as_str()) {
            verdicts.push(Verdict::Removed { tool: entry.tool.clone() });
        }
    }
}
