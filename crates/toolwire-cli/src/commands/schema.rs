//! `toolwire schema`: the definitions for one provider on stdout, and each tool's schema
//! change report on stderr.

use std::path::Path;

use toolwire::dialect::Dialect;
use toolwire::{Provider, Tool};

use crate::build;
use crate::exit::{CliError, Exit};
use crate::manifest::Manifest;

/// The dialect `tool`'s parameters are compiled to for `provider`.
fn dialect(tool: &Tool, provider: Provider) -> Dialect {
    let strict = tool.to_flat_function()["strict"] == true;
    provider.dialect(strict)
}

/// One tool's schema change report for one provider, as lines; `Err` when the provider
/// cannot take the schema.
pub(crate) fn report(tool: &Tool, provider: Provider) -> Result<Vec<String>, String> {
    let name = tool.name();
    let at = provider.as_str();
    match tool.compiled(dialect(tool, provider)) {
        Ok(compiled) => {
            Ok(compiled.changes.iter().map(|change| format!("{name}: {at}: {change}")).collect())
        }
        Err(error) => Err(format!("{name}: {at}: {error}")),
    }
}

/// Runs `toolwire schema`: the manifest's tools and those its MCP servers give.
///
/// # Errors
///
/// A bad manifest or lock file.
pub(crate) async fn run(manifest: &Path, provider: Provider) -> Result<Exit, CliError> {
    let loaded = Manifest::load(manifest)?;
    let mut imported = crate::remote::load(manifest, &loaded).await?;
    let (tools, deferral) = imported.take_tools();
    let (registry, _policy) = build::registry_with(loaded, None, tools, deferral)?;
    imported.close().await;
    let definitions: Vec<_> =
        registry.tools().iter().map(|tool| tool.definition(provider)).collect();
    let text = serde_json::to_string_pretty(&definitions).map_err(CliError::usage)?;
    println!("{text}");
    let mut exit = Exit::Success;
    for tool in registry.tools() {
        match report(tool, provider) {
            Ok(lines) if lines.is_empty() => {
                eprintln!("{}: {}: no changes", tool.name(), provider.as_str())
            }
            Ok(lines) => lines.iter().for_each(|line| eprintln!("{line}")),
            Err(line) => {
                eprintln!("error: {line}");
                exit = Exit::Usage;
            }
        }
    }
    Ok(exit)
}
