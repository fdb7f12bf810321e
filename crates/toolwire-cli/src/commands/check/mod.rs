//! `toolwire check`: lints the manifest for every provider, and checks what can be checked
//! before a call: programs that exist, working directories, header variables, and whether this
//! machine can enforce each command tool's sandbox.

mod catalog;
mod shell;

use std::path::Path;

use toolwire::Provider;

use crate::build;
use crate::exit::{CliError, Exit};
use crate::remote::{self, Verdict};
use toolwire_process::launcher::Launcher;
use toolwire_process::sandbox::{Policy, Sandbox};
use toolwire_process::{CommandSpec, argv, resolve_program};

use crate::manifest::{Guarded, HeaderSpec, Manifest, ToolDef, ToolKind};

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
pub(crate) async fn run(path: &Path, journal: Option<&Path>) -> Result<Exit, CliError> {
    let mut manifest = Manifest::load(path)?;
    let guarded = Guarded::of(&manifest, path, journal);
    manifest.guard(&guarded);
    let mut findings = Findings::default();
    manifest.tools.iter().for_each(|tool| runtime(tool, &mut findings));
    let sandboxes: Vec<String> = manifest.tools.iter().filter_map(sandbox).collect();
    let (imported, deferral, left_out) = servers(path, &manifest, &mut findings).await?;
    let (registry, policy) = build::registry_with(manifest, None, imported, deferral)?;
    sandboxes.iter().for_each(|line| eprintln!("note: {line}"));
    if let Some(policy) = &policy {
        policy_report(policy, &registry, &mut findings);
    }
    let providers = linted();
    catalog::report(&registry, &providers).iter().for_each(|line| eprintln!("note: {line}"));
    for provider in providers.iter().copied() {
        for tool in
            registry.tools().iter().filter(|tool| !left_out.iter().any(|name| name == tool.name()))
        {
            match crate::commands::schema::report(tool, provider) {
                Ok(lines) => lines.into_iter().for_each(|line| eprintln!("note: {line}")),
                Err(line) => findings.error(line),
            }
        }
    }
    let Findings { errors, warnings } = findings;
    let (tools, providers) = (registry.len(), providers.len());
    let exit = if errors == 0 { Exit::Success } else { Exit::Usage };
    let (tools, errors, warnings) =
        (count(tools, "tool"), count(errors, "error"), count(warnings, "warning"));
    eprintln!("checked {tools} for {providers} providers: {errors}, {warnings}");
    Ok(exit)
}

/// What the Cedar policy says of the tools: how many policies, the tools no policy permits
/// (every call of them is denied) and the arguments no policy can read. The seal validated
/// the policies already; an error there ended the check before this.
fn policy_report(
    policy: &toolwire_cedar::CedarPolicy,
    registry: &toolwire::Registry,
    findings: &mut Findings,
) {
    let shown = policy.path().map_or_else(String::new, |p| format!(" from {}", p.display()));
    match policy.check_tools(registry.tools()) {
        Ok(report) => {
            let policies = match report.policies {
                1 => "1 policy".to_owned(),
                n => format!("{n} policies"),
            };
            eprintln!("note: policy: {policies}{shown}, checked against every tool");
            for tool in &report.unpermitted {
                findings.warning(format!(
                    "policy: no policy permits {tool:?}: every call of it is denied"
                ));
            }
            for (tool, argument) in &report.hidden {
                eprintln!(
                    "note: policy: argument {argument:?} of {tool:?} has no single type: policies cannot read it"
                );
            }
        }
        Err(error) => findings.error(format!("policy: {error}")),
    }
}

/// The tools the servers give, the catalog settings of their servers, and the names of
/// those left out.
type Surveyed = (Vec<toolwire::Tool>, Vec<(String, bool)>, Vec<String>);

/// Connects to the manifest's MCP servers, as a command would, and reports what each one
/// would import and what it would leave out, and why; nothing is written to the lock file.
/// The tools it would register (with the stand-ins of those left out), their servers'
/// catalog settings, and the names of those left out.
async fn servers(
    path: &Path,
    manifest: &Manifest,
    findings: &mut Findings,
) -> Result<Surveyed, CliError> {
    if manifest.servers.is_empty() {
        return Ok((Vec::new(), Vec::new(), Vec::new()));
    }
    let mut lock = remote::LockFile::beside(path).map_err(CliError::usage)?;
    let (mut imported, verdicts) = remote::survey(manifest, &mut lock).await;
    for (server, verdict) in &verdicts {
        let line = remote::Shown(server, verdict).to_string();
        match verdict {
            Verdict::Unreachable { .. } | Verdict::Changed { .. } => findings.error(line),
            Verdict::New { .. } | Verdict::Unusable { .. } | Verdict::Removed { .. } => {
                findings.warning(line);
            }
            _ => eprintln!("note: {line}"),
        }
    }
    for server in &manifest.servers {
        if let Sandbox::Policy(_) = &server.sandbox
            && matches!(server.spec, toolwire_mcp::client::ServerSpec::Stdio(_))
        {
            eprintln!("note: mcp server {:?}: sandbox: {}", server.name, server.sandbox);
        }
    }
    let (tools, deferral) = imported.take_tools();
    imported.close().await;
    // The stand-ins of tools left out (unreachable, changed) are registered, so that their
    // names are checked, but not linted: their reason was said above.
    let kept: Vec<&str> = verdicts
        .iter()
        .filter_map(|(_, verdict)| match verdict {
            Verdict::Imported { name } | Verdict::PinnedNew { name } => Some(name.as_str()),
            _ => None,
        })
        .collect();
    let left_out = tools.iter().map(toolwire::Tool::name).filter(|name| !kept.contains(name));
    let left_out = left_out.map(str::to_owned).collect();
    Ok((tools, deferral, left_out))
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
            option_position(tool, command, findings);
            shell::code_strings(tool, command, findings);
            if let Sandbox::Policy(policy) = &command.sandbox {
                sandbox_here(name, policy, command.cwd.as_deref(), findings);
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

/// What this machine makes of a tool's sandbox, found by setting it up once without a
/// program: a warning when every call would fail, or for each layer it runs without; and a
/// warning when a read list leaves the writable working folder readable.
fn sandbox_here(name: &str, policy: &Policy, cwd: Option<&Path>, findings: &mut Findings) {
    let here = std::env::current_dir().unwrap_or_default();
    let cwd = cwd.map_or(here.clone(), |cwd| here.join(cwd));
    if !cwd.is_dir() {
        return;
    }
    match policy.probe(&Launcher::CurrentExe, &cwd) {
        Err(why) => findings.warning(format!("{name:?}: every call will fail here: {why}")),
        Ok(report) => {
            for layer in report.missing {
                findings.warning(format!(
                    "{name:?}: runs without {layer} here, which its sandbox accepts (accept_missing)"
                ));
            }
        }
    }
    let reads_everywhere = policy.read.iter().any(|path| path == Path::new("/"));
    let covered = policy.read.iter().any(|path| cwd.starts_with(here.join(path)));
    if policy.write_working_folder && !reads_everywhere && !covered {
        findings.warning(format!(
            "{name:?}: its read list does not keep it from reading its working folder {}, which \
             is writable and so readable: set write_working_folder = false and list what it may \
             write, or keep secrets out of that folder",
            cwd.display()
        ));
    }
}

/// A command tool's effective sandbox, in words.
fn sandbox(tool: &ToolDef) -> Option<String> {
    match &tool.kind {
        ToolKind::Command(command) => {
            Some(format!("{:?}: sandbox: {}", tool.name, command.sandbox))
        }
        ToolKind::Http(_) => None,
    }
}

/// A warning for each placeholder in option position that a value starting with `-` could
/// fill: such a call is refused. A note for each one allowed to take it anyway.
fn option_position(tool: &ToolDef, command: &CommandSpec, findings: &mut Findings) {
    let (name, program) = (&tool.name, &command.program);
    let properties = tool.parameters.as_ref().and_then(|schema| schema.get("properties"));
    for placeholder in argv::exposed(&command.args) {
        let schema = properties.and_then(|properties| properties.get(placeholder));
        if !argv::may_start_with_dash(schema) {
            continue;
        }
        if command.option_values.allows(placeholder) {
            eprintln!(
                "note: {name:?}: {{{placeholder}}} stands alone in option position and may take a value \
                 starting with \"-\" (allow_option_values): {program:?} reads such a value as an option"
            );
        } else {
            findings.warning(format!(
                "{name:?}: {{{placeholder}}} stands alone in option position: a value starting with \"-\" \
                 is refused at call time; put \"--\" before it in the argv (if {program:?} ends its \
                 options there), or set \
                 allow_option_values = [\"{placeholder}\"] if {program:?} should take such values"
            ));
        }
    }
}

/// `1 error`, `2 errors`.
fn count(n: usize, noun: &str) -> String {
    if n == 1 { format!("1 {noun}") } else { format!("{n} {noun}s") }
}

/// The providers the manifest is linted for: every one but the flat function, which is
/// OpenAI's shape without its wrapper and would repeat OpenAI's notes.
fn linted() -> Vec<Provider> {
    Provider::ALL.into_iter().filter(|provider| *provider != Provider::FlatFunction).collect()
}
