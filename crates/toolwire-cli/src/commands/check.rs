//! `toolwire check`: lints the manifest for every provider, and checks what can be checked
//! before a call: programs that exist, working directories, header variables.

use std::path::Path;

use clap::ValueEnum;

use crate::build;
use crate::cli::ProviderArg;
use crate::command::resolve_program;
use crate::exit::{CliError, Exit};
use crate::manifest::{HeaderSpec, Manifest, ToolDef, ToolKind};

/// What the lint found.
#[derive(Debug, Default)]
struct Findings {
    errors: usize,
    warnings: usize,
}

impl Findings {
    fn error(&mut self, message: String) {
        self.errors += 1;
        eprintln!("error: {message}");
    }

    fn warning(&mut self, message: String) {
        self.warnings += 1;
        eprintln!("warning: {message}");
    }
}

/// Runs `toolwire check`: exit code 0 when there is no error, 2 otherwise.
///
/// # Errors
///
/// A bad manifest.
pub(crate) fn run(manifest: &Path) -> Result<Exit, CliError> {
    let manifest = Manifest::load(manifest)?;
    let mut findings = Findings::default();
    manifest.tools.iter().for_each(|tool| runtime(tool, &mut findings));
    let registry = build::registry(manifest)?;
    for provider in ProviderArg::value_variants() {
        for tool in registry.tools() {
            match crate::commands::schema::report(tool, *provider) {
                Ok(lines) => lines.into_iter().for_each(|line| eprintln!("note: {line}")),
                Err(line) => findings.error(line),
            }
        }
    }
    let Findings { errors, warnings } = findings;
    let (tools, providers) = (registry.len(), ProviderArg::value_variants().len());
    let exit = if errors == 0 { Exit::Success } else { Exit::Usage };
    let (tools, errors, warnings) =
        (count(tools, "tool"), count(errors, "error"), count(warnings, "warning"));
    eprintln!("checked {tools} for {providers} providers: {errors}, {warnings}");
    Ok(exit)
}

/// What only the machine can tell: the program, the folder, the variables.
fn runtime(tool: &ToolDef, findings: &mut Findings) {
    let name = &tool.name;
    match &tool.kind {
        ToolKind::Command(command) => {
            if let Some(cwd) = command.cwd.as_deref().filter(|cwd| !cwd.is_dir()) {
                findings.error(format!(
                    "{name:?}: the working directory {} does not exist",
                    cwd.display()
                ));
            }
            if let Err(why) = resolve_program(&command.program, command.cwd.as_deref()) {
                findings.error(format!("{name:?}: {why}"));
            }
        }
        ToolKind::Http(http) => {
            for (header, spec) in &http.headers {
                if let HeaderSpec::Env { env, .. } = spec
                    && std::env::var_os(env).is_none()
                {
                    findings.warning(format!("{name:?}: the environment variable {env} for the header {header} is not set"));
                }
            }
        }
    }
}

/// `1 error`, `2 errors`.
fn count(n: usize, noun: &str) -> String {
    if n == 1 { format!("1 {noun}") } else { format!("{n} {noun}s") }
}
