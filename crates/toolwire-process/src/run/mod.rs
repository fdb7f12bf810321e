//! Running a command tool's call: a program run with its argv filled from the validated
//! arguments, never through a shell, with only the allowlisted environment, inside its
//! sandbox, with a timeout that kills it and a limit on what it may write.

mod group;
mod output;
mod result;

use std::path::{Path, PathBuf};
use std::process::Stdio;
use std::sync::Arc;

use serde_json::Value;
use tokio::process::Command;
use toolwire::{ToolContext, ToolResult};

use self::group::Group;
use crate::launcher::PLAN_ENV;
use crate::resolve::program as resolve_program;
use crate::sandbox::plan::{Prepared, prepare};
use crate::sandbox::{Policy, Sandbox};
use crate::spec::CommandSpec;

/// A command tool, ready to run calls; cheap to clone.
///
/// ```no_run
/// use toolwire::Tool;
/// use toolwire_process::{CommandSpec, CommandTool, Template};
///
/// # fn main() -> Result<(), Box<dyn std::error::Error>> {
/// toolwire_process::launcher::run_if_requested();
/// let spec = CommandSpec::new("echo", vec![Template::parse("{message}")?]);
/// let echo = CommandTool::new("echo", spec);
/// let tool = Tool::define("echo")
///     .execute(move |args, ctx| {
///         let echo = echo.clone();
///         async move { echo.run(args, ctx).await }
///     })
///     .build()?;
/// # Ok(()) }
/// ```
#[derive(Debug, Clone)]
pub struct CommandTool {
    name: Arc<str>,
    spec: Arc<CommandSpec>,
}

impl CommandTool {
    /// The tool `name` running `spec`.
    pub fn new(name: &str, spec: CommandSpec) -> Self {
        Self { name: Arc::from(name), spec: Arc::new(spec) }
    }

    /// The tool's name.
    pub fn name(&self) -> &str {
        &self.name
    }

    /// What it runs.
    pub fn spec(&self) -> &CommandSpec {
        &self.spec
    }

    /// Runs one call. The program runs in its sandbox, in a process group of its own, which
    /// is killed, with every process the program started, when the call is dropped
    /// (aborted), on timeout, when it writes more than its limit, and once the program has
    /// exited and its output was drained. Its temporary folder is removed after that.
    ///
    /// # Cancel safety
    ///
    /// Dropping the future kills the program's process group (and cgroup) and removes its
    /// temporary folder.
    pub async fn run(&self, args: Value, ctx: ToolContext) -> ToolResult {
        let (command, _sandbox) = match self.command(&args) {
            Ok(command) => command,
            Err(failure) => return failure,
        };
        let group = match Group::spawn(command) {
            Ok(group) => group,
            Err(error) => {
                return ToolResult::failure(format!(
                    "cannot start {:?} for {:?}: {error}",
                    self.spec.program, self.name
                ));
            }
        };
        let run = output::collect(group, self.spec.output_limit, &ctx);
        match tokio::time::timeout(self.spec.timeout, run).await {
            Err(_) => ToolResult::failure(format!(
                "{:?} ran longer than {} and was killed",
                self.name,
                humantime::format_duration(self.spec.timeout)
            )),
            Ok(Err(why)) => ToolResult::failure(format!("{:?}: {why}", self.name)),
            Ok(Ok(done)) => result::of(&self.name, &self.spec, done),
        }
    }

    /// The command for `args`: the argv filled (no value in option position may start with
    /// `-` unless allowed), the program found, the environment cleared but for the allowlist,
    /// the sandbox prepared (held by the caller for the length of the call).
    fn command(&self, args: &Value) -> Result<(Command, Option<Prepared>), ToolResult> {
        let spec = &self.spec;
        let argv =
            crate::argv::fill(&self.name, &spec.program, &spec.args, &spec.option_values, args)?;
        let program = resolve_program(&spec.program, spec.cwd.as_deref())
            .map_err(|why| ToolResult::failure(format!("cannot run {:?}: {why}", self.name)))?;
        let (mut command, prepared) = match &spec.sandbox {
            Sandbox::None => (Command::new(&program), None),
            Sandbox::Policy(policy) => {
                let (command, prepared) = self.launch(policy, &program)?;
                (command, Some(prepared))
            }
        };
        if prepared.is_none() {
            command.arg0(&spec.program);
        }
        command.args(argv);
        command.env_clear();
        for (key, value) in std::env::vars_os()
            .filter(|(key, _)| spec.env.iter().any(|allowed| key == allowed.as_str()))
        {
            command.env(key, value);
        }
        if let Some(prepared) = &prepared {
            let plan = serde_json::to_string(&prepared.plan).map_err(|error| {
                ToolResult::failure(format!("cannot write the sandbox of {:?}: {error}", self.name))
            })?;
            command.env(PLAN_ENV, plan);
            if let Some(temp) = &prepared.temp {
                command.env("TMPDIR", temp.path());
            }
        }
        if let Some(cwd) = &spec.cwd {
            command.current_dir(cwd);
        }
        command.stdin(Stdio::null()).stdout(Stdio::piped()).stderr(Stdio::piped());
        Ok((command, prepared))
    }

    /// The launcher's command for `program` under `policy`, before the program's arguments.
    fn launch(&self, policy: &Policy, program: &Path) -> Result<(Command, Prepared), ToolResult> {
        let cwd = match &self.spec.cwd {
            Some(cwd) => cwd.clone(),
            None => std::env::current_dir().unwrap_or_else(|_| PathBuf::from(".")),
        };
        let prepared = prepare(policy, &cwd)
            .map_err(|error| ToolResult::failure(format!("cannot run {:?}: {error}", self.name)))?;
        let launcher = self.spec.launcher.path().map_err(|error| {
            ToolResult::failure(format!(
                "cannot find the sandbox launcher of {:?}: {error}",
                self.name
            ))
        })?;
        let mut command = Command::new(launcher);
        command.arg(program).arg(&self.spec.program);
        Ok((command, prepared))
    }
}
