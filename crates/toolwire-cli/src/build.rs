//! Turning a checked manifest into a sealed [`Registry`] of toolwire tools.

use std::sync::Arc;

use serde_json::Value;
use tokio::sync::Semaphore;
use toolwire::{DefineErrorKind, Registry, Tool, ToolBuilder, ToolContext, ToolResult};

use toolwire_cedar::CedarPolicy;

use crate::http_tool::HttpTool;
use crate::manifest::{Manifest, ManifestError, ToolDef, ToolKind};
use toolwire_process::CommandTool;

/// What a manifest tool runs, with the limit on its concurrent calls.
#[derive(Debug, Clone)]
enum Runner {
    Command(CommandTool),
    Http(HttpTool),
}

impl Runner {
    async fn run(&self, args: Value, ctx: ToolContext, permits: Option<&Semaphore>) -> ToolResult {
        let _permit = match permits {
            Some(permits) => match permits.acquire().await {
                Ok(permit) => Some(permit),
                Err(_) => return ToolResult::failure("the tool's concurrency limit was closed"),
            },
            None => None,
        };
        match self {
            Runner::Command(tool) => tool.run(args, ctx).await,
            Runner::Http(tool) => tool.run(args).await,
        }
    }
}

/// Who appends a journaled registry's receipts to the journal's audit log.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Audit {
    /// Its caller: the journal's own calls and resumes, or the agent's run.
    Caller,
    /// The registry itself, for every receipt (`serve`).
    Registry,
}

/// The manifest's tools and `imported` (the tools of its MCP servers), in a registry sealed
/// for `journal` when given: with its key for approvals, spent in it. The catalog follows the
/// manifest's `defer_threshold` and each tool's `defer_loading`, then `deferral` (each
/// imported tool of a server that sets `defer_loading`).
///
/// With the manifest's `policy`, the registry's policy is its Cedar policies, checked against
/// every tool when the registry is sealed; the policy is returned too, to reload it.
///
/// # Errors
///
/// A [`ManifestError`] at the tool's name or parameters when toolwire rejects its
/// definition, when two tools share a name, and when the policy cannot be read or does not
/// fit the tools (with the policy's own file and line).
pub(crate) fn registry_with(
    mut manifest: Manifest,
    journal: Option<(&crate::journal::Journal, Audit)>,
    imported: Vec<Tool>,
    deferral: Vec<(String, bool)>,
) -> Result<(Registry, Option<CedarPolicy>), ManifestError> {
    let defs = std::mem::take(&mut manifest.tools);
    let own: Vec<(String, bool)> = defs
        .iter()
        .filter_map(|def| def.defer_loading.map(|defer| (def.name.clone(), defer)))
        .collect();
    let tools = defs.into_iter().map(|def| tool(&manifest, def)).collect::<Result<Vec<_>, _>>()?;
    let mut builder = Registry::builder()
        .register_all(tools)
        .register_all(imported)
        .defer_threshold(manifest.defer_threshold);
    for (name, defer) in own.into_iter().chain(deferral) {
        builder = builder.defer_loading(name, defer);
    }
    if let Some((journal, audit)) = journal {
        // Every process sharing the journal resumes the others' approvals, and spends each
        // one in the journal, so it runs one call across all of them.
        builder =
            builder.approval_key(journal.approval_key()).approval_store(journal.library().clone());
        if audit == Audit::Registry {
            builder = builder.on_receipt(journal.library().audit_hook());
        }
    }
    let policy = match &manifest.policy {
        Some(path) => Some(CedarPolicy::from_file(path).map_err(|error| {
            ManifestError::whole(format!("the policy {} cannot be used: {error}", path.display()))
        })?),
        None => None,
    };
    if let Some(policy) = &policy {
        builder = builder.policy(policy.clone());
    }
    let registry = builder.seal().map_err(|error| ManifestError::whole(error.to_string()))?;
    Ok((registry, policy))
}

fn tool(manifest: &Manifest, def: ToolDef) -> Result<Tool, ManifestError> {
    let runner = match def.kind {
        ToolKind::Command(command) => Runner::Command(CommandTool::new(&def.name, *command)),
        ToolKind::Http(http) => Runner::Http(HttpTool::new(&def.name, http)),
    };
    let permits = def.concurrency.map(|limit| Arc::new(Semaphore::new(limit)));
    let mut builder = Tool::define(def.name.as_str()).execute(move |args, ctx| {
        let (runner, permits) = (runner.clone(), permits.clone());
        async move { runner.run(args, ctx, permits.as_deref()).await }
    });
    if let Some(description) = def.description {
        builder = builder.description(description);
    }
    if let Some(title) = def.title {
        builder = builder.title(title);
    }
    if let Some(parameters) = def.parameters {
        builder = builder.parameters(parameters);
    }
    if let Some(strict) = def.strict {
        builder = builder.strict(strict);
    }
    builder = hints(builder, def.hints).task_support(def.task_support);
    builder.needs_approval(def.needs_approval).build().map_err(|error| {
        let span = match (error.kind(), &def.parameters_span) {
            (DefineErrorKind::InvalidName, _) | (_, None) => def.name_span.clone(),
            (_, Some(span)) => span.clone(),
        };
        manifest.error_at(span, error.to_string())
    })
}

/// A hint setter of the builder.
type SetHint = fn(ToolBuilder, bool) -> ToolBuilder;

/// Sets the MCP hints the manifest gives: read-only, destructive, idempotent, open world.
fn hints(mut builder: ToolBuilder, hints: [Option<bool>; 4]) -> ToolBuilder {
    let setters: [SetHint; 4] = [
        ToolBuilder::read_only,
        ToolBuilder::destructive,
        ToolBuilder::idempotent,
        ToolBuilder::open_world,
    ];
    for (hint, set) in hints.into_iter().zip(setters) {
        if let Some(hint) = hint {
            builder = set(builder, hint);
        }
    }
    builder
}
