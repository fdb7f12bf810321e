//! Helpers of the escape tests: run a program under a policy through the public API.

use std::path::{Path, PathBuf};
use std::time::Duration;

use serde_json::json;
use toolwire::{ToolContext, ToolResult};
use toolwire_process::launcher::Launcher;
use toolwire_process::sandbox::{Policy, Sandbox};
use toolwire_process::{CommandSpec, CommandTool, Template};

/// The real Python (not a version manager's shim, which needs its environment).
pub(crate) const PYTHON: &str = "/usr/bin/python3";

/// A fresh folder, removed when the returned guard drops.
pub(crate) fn folder() -> tempfile::TempDir {
    tempfile::Builder::new()
        .prefix("toolwire-process-test-")
        .tempdir()
        .unwrap_or_else(|error| panic!("cannot make a folder: {error}"))
}

/// Runs `argv` (literal elements) in `cwd` under `sandbox`, with this crate's launcher.
pub(crate) fn run(sandbox: Sandbox, cwd: &Path, argv: &[&str]) -> ToolResult {
    let (program, args) = argv.split_first().unwrap_or_else(|| panic!("an empty argv"));
    let args = args.iter().map(|arg| literal(arg)).collect();
    let mut spec = CommandSpec::new(*program, args);
    spec.cwd = Some(cwd.to_owned());
    spec.timeout = Duration::from_secs(20);
    spec.sandbox = sandbox;
    spec.launcher = Launcher::Path(PathBuf::from(env!("CARGO_BIN_EXE_toolwire-launch")));
    let tool = CommandTool::new("probe", spec);
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .unwrap_or_else(|error| panic!("no runtime: {error}"));
    runtime.block_on(tool.run(json!({}), ToolContext::default()))
}

/// A template that is its text, braces and all.
fn literal(text: &str) -> Template {
    let escaped = text.replace('{', "{{").replace('}', "}}");
    Template::parse(&escaped).unwrap_or_else(|error| panic!("{error}"))
}

/// The default policy.
pub(crate) fn default_sandbox() -> Sandbox {
    Sandbox::Policy(Policy::default())
}

/// The default policy, changed by `change`.
pub(crate) fn sandbox(change: impl FnOnce(&mut Policy)) -> Sandbox {
    let mut policy = Policy::default();
    change(&mut policy);
    Sandbox::Policy(policy)
}

/// The result's text, for messages.
pub(crate) fn text(result: &ToolResult) -> String {
    result.text().unwrap_or_default().to_owned()
}
