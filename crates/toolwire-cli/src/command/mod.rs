//! Command tools: a program run with its argv filled from the validated arguments, never
//! through a shell, with only the allowlisted environment, a timeout that kills it, and a
//! limit on what it may write.

pub(crate) mod argv;
mod group;
mod output;
mod resolve;

use std::process::{ExitStatus, Stdio};
use std::sync::Arc;

use serde_json::{Value, json};
use tokio::process::Command;
use toolwire::{ToolContext, ToolResult};

use self::group::Group;
use crate::manifest::CommandDef;
pub(crate) use resolve::program as resolve_program;

/// A command tool, ready to run calls.
#[derive(Debug, Clone)]
pub(crate) struct CommandTool {
    name: Arc<str>,
    def: Arc<CommandDef>,
}

impl CommandTool {
    /// The tool `name` running `def`.
    pub(crate) fn new(name: &str, def: CommandDef) -> Self {
        Self { name: Arc::from(name), def: Arc::new(def) }
    }

    /// Runs one call. The program runs in a process group of its own, which is killed, with
    /// every process the program started, when the call is dropped (aborted), on timeout,
    /// when it writes more than its limit, and once the program has exited and its output
    /// was drained.
    pub(crate) async fn run(&self, args: Value, ctx: ToolContext) -> ToolResult {
        let command = match self.command(&args) {
            Ok(command) => command,
            Err(failure) => return failure,
        };
        let group = match Group::spawn(command) {
            Ok(group) => group,
            Err(error) => {
                return ToolResult::failure(format!(
                    "cannot start {:?} for {:?}: {error}",
                    self.def.program, self.name
                ));
            }
        };
        let limit = self.def.output_limit;
        let run = output::collect(group, limit, &ctx);
        match tokio::time::timeout(self.def.timeout, run).await {
            Err(_) => ToolResult::failure(format!(
                "{:?} ran longer than {} and was killed",
                self.name,
                humantime::format_duration(self.def.timeout)
            )),
            Ok(Err(why)) => ToolResult::failure(format!("{:?}: {why}", self.name)),
            Ok(Ok(done)) => self.result(done.status, done.stdout, done.stderr),
        }
    }

    /// The command for `args`: the argv filled (no value in option position may start with
    /// `-` unless allowed), the program found, the environment cleared but for the allowlist.
    fn command(&self, args: &Value) -> Result<Command, ToolResult> {
        let def = &self.def;
        let argv = argv::fill(&self.name, &def.program, &def.args, &def.option_values, args)?;
        let program = resolve_program(&def.program, def.cwd.as_deref())
            .map_err(|why| ToolResult::failure(format!("cannot run {:?}: {why}", self.name)))?;
        let mut command = Command::new(program);
        command.arg0(&def.program);
        command.args(argv);
        command.env_clear();
        for (key, value) in std::env::vars_os()
            .filter(|(key, _)| def.env.iter().any(|allowed| key == allowed.as_str()))
        {
            command.env(key, value);
        }
        if let Some(cwd) = &def.cwd {
            command.current_dir(cwd);
        }
        command.stdin(Stdio::null()).stdout(Stdio::piped()).stderr(Stdio::piped());
        Ok(command)
    }

    fn result(&self, status: ExitStatus, stdout: Vec<u8>, stderr: String) -> ToolResult {
        let stdout = String::from_utf8_lossy(&stdout).into_owned();
        if !status.success() {
            let how = match status.code() {
                Some(code) => format!("exited with status {code}"),
                None => "was killed by a signal".to_owned(),
            };
            let detail = stderr.trim_end();
            let detail = if detail.is_empty() { String::new() } else { format!(": {detail}") };
            return ToolResult::failure(format!("{:?} {how}{detail}", self.name));
        }
        let text = stdout.trim_end().to_owned();
        if self.def.json_output {
            return match serde_json::from_str::<Value>(&stdout) {
                Ok(value) => ToolResult::ok(value, text),
                Err(error) => ToolResult::failure(format!(
                    "the output of {:?} is not JSON: {error}",
                    self.name
                )),
            };
        }
        ToolResult::ok(json!({"stdout": stdout, "stderr": stderr, "status": 0}), text)
    }
}
