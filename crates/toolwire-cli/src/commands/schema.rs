//! `toolwire schema`: the definitions for one provider on stdout, and each tool's schema
//! change report on stderr.

use std::path::Path;

use toolwire::dialect::Dialect;
use toolwire::{Provider, Tool};

use crate::build;
use crate::cli::ProviderArg;
use crate::exit::{CliError, Exit};
use crate::manifest::Manifest;

impl ProviderArg {
    /// The library's provider.
    pub(crate) fn provider(self) -> Provider {
        match self {
            ProviderArg::Openai => Provider::OpenAi,
            ProviderArg::Responses => Provider::Responses,
            ProviderArg::Anthropic => Provider::Anthropic,
            ProviderArg::Gemini => Provider::Gemini,
            ProviderArg::Mcp => Provider::Mcp,
        }
    }

    /// The name on the command line.
    pub(crate) fn name(self) -> &'static str {
        self.provider().as_str()
    }

    /// The dialect `tool`'s parameters are compiled to for this provider, if any.
    pub(crate) fn dialect(self, tool: &Tool) -> Dialect {
        let strict = tool.to_flat_function()["strict"] == true;
        self.provider().dialect(strict)
    }
}

/// One tool's schema change report for one provider, as lines; `Err` when the provider
/// cannot take the schema.
pub(crate) fn report(tool: &Tool, provider: ProviderArg) -> Result<Vec<String>, String> {
    let name = tool.name();
    let at = provider.name();
    match tool.compiled(provider.dialect(tool)) {
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
pub(crate) async fn run(manifest: &Path, provider: ProviderArg) -> Result<Exit, CliError> {
    let loaded = Manifest::load(manifest)?;
    let mut imported = crate::remote::load(manifest, &loaded).await?;
    let tools = std::mem::take(&mut imported.tools);
    let registry = build::registry_with(loaded, None, tools)?;
    imported.close().await;
    let definitions: Vec<_> =
        registry.tools().iter().map(|tool| tool.definition(provider.provider())).collect();
    let text = serde_json::to_string_pretty(&definitions).map_err(CliError::usage)?;
    println!("{text}");
    let mut exit = Exit::Success;
    for tool in registry.tools() {
        match report(tool, provider) {
            Ok(lines) if lines.is_empty() => {
                eprintln!("{}: {}: no changes", tool.name(), provider.name())
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
