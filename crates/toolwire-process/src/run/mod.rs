//! Running a command tool's call: a program run with its argv filled from the validated
//! arguments, never through a shell, with only the allowlisted environment, inside its
//! sandbox, with a timeout that kills it and a limit on what it may write.

mod group;
mod media;
mod output;
mod ready;
mod result;

use std::path::PathBuf;
use std::process::Stdio;
use std::sync::Arc;

use serde_json::Value;
use tokio::process::Command;
use toolwire::{ToolContext, ToolResult};

use self::group::Group;
use self::ready::{Ready, Spare, Started};
use crate::resolve::program as resolve_program;
use crate::sandbox::launch::utf8;
use crate::sandbox::plan::{Call, CallGuard, Launch};
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
    /// The sandbox launcher kept ready for the next call.
    spare: Arc<Spare>,
}

/// Why a call did not finish: it could not start, or it failed while running.
enum Failed {
    Start(ToolResult),
    Run(String),
}

/// What a sandboxed call holds until its program has ended: its launcher's cgroup and its
/// temporary folder.
struct Held {
    _launch: Launch,
    _call: CallGuard,
}

impl CommandTool {
    /// The tool `name` running `spec`.
    pub fn new(name: &str, spec: CommandSpec) -> Self {
        Self { name: Arc::from(name), spec: Arc::new(spec), spare: Arc::default() }
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
    /// From a tool's second sandboxed call on, a launcher for the next call is started while
    /// this one runs, and waits for it: a sandbox's start is then mostly done before the call
    /// comes.
    ///
    /// # Cancel safety
    ///
    /// Dropping the future kills the program's process group (and cgroup) and removes its
    /// temporary folder.
    pub async fn run(&self, args: Value, ctx: ToolContext) -> ToolResult {
        let began = std::time::SystemTime::now();
        let started = async {
            match &self.spec.sandbox {
                Sandbox::None => self.unsandboxed(&args).map(|group| (group, None)),
                Sandbox::Policy(policy) => self.sandboxed(policy, &args).await,
            }
        };
        let run = async {
            let (group, held) = started.await.map_err(Failed::Start)?;
            let done = output::collect(group, self.spec.output_limit, &ctx).await;
            drop(held);
            done.map_err(Failed::Run)
        };
        match tokio::time::timeout(self.spec.timeout, run).await {
            Err(_) => ToolResult::failure(format!(
                "{:?} ran longer than {} and was killed",
                self.name,
                humantime::format_duration(self.spec.timeout)
            )),
            Ok(Err(Failed::Start(failure))) => failure,
            Ok(Err(Failed::Run(why))) => ToolResult::failure(format!("{:?}: {why}", self.name)),
            Ok(Ok(done)) => result::of(&self.name, &self.spec, done, &self.working_folder(), began),
        }
    }

    /// The argv for `args` (no value in option position may start with `-` unless allowed),
    /// and the program found.
    fn argv(&self, args: &Value) -> Result<(PathBuf, Vec<String>), ToolResult> {
        let spec = &self.spec;
        let argv =
            crate::argv::fill(&self.name, &spec.program, &spec.args, &spec.option_values, args)?;
        let program = resolve_program(&spec.program, spec.cwd.as_deref())
            .map_err(|why| self.failure(format!("cannot run {:?}: {why}", self.name)))?;
        Ok((program, argv))
    }

    /// Starts the program unsandboxed, with the environment cleared but for the allowlist.
    fn unsandboxed(&self, args: &Value) -> Result<Group, ToolResult> {
        let spec = &self.spec;
        let (program, argv) = self.argv(args)?;
        let mut command = Command::new(&program);
        command.arg0(&spec.program).args(argv).env_clear();
        command.envs(
            std::env::vars_os()
                .filter(|(key, _)| spec.env.iter().any(|allowed| key == allowed.as_str())),
        );
        if let Some(cwd) = &spec.cwd {
            command.current_dir(cwd);
        }
        command.stdin(Stdio::null()).stdout(Stdio::piped()).stderr(Stdio::piped());
        Group::spawn(command, false).map_err(|error| self.cannot_start(error))
    }

    /// Starts the program under `policy`, through the launcher kept ready if there is one.
    async fn sandboxed(
        &self,
        policy: &Policy,
        args: &Value,
    ) -> Result<(Group, Option<Held>), ToolResult> {
        let (program, mut argv) = self.argv(args)?;
        let program = utf8(program.as_os_str()).map_err(|error| self.failure(error.to_string()))?;
        argv.splice(0..0, [program, self.spec.program.clone()]);
        let cwd = self.working_folder();
        let (call, guard) = Call::prepare(policy, &cwd, argv)
            .map_err(|error| self.failure(format!("cannot run {:?}: {error}", self.name)))?;
        let ready = match self.spare.take() {
            Some(ready) => ready,
            None => Ready::spawn(&self.spec, policy)
                .map_err(|why| self.failure(format!("cannot run {:?}: {why}", self.name)))?,
        };
        let started = ready
            .start(&call)
            .await
            .map_err(|why| self.failure(format!("cannot run {:?}: {why}", self.name)))?;
        let (spare, spec) = (Arc::clone(&self.spare), Arc::clone(&self.spec));
        tokio::task::spawn_blocking(move || {
            if let Sandbox::Policy(policy) = &spec.sandbox {
                spare.refill(&spec, policy);
            }
        });
        let Started { group, launch } = started;
        Ok((group, Some(Held { _launch: launch, _call: guard })))
    }

    /// The folder the program runs in: its own, or the caller's.
    fn working_folder(&self) -> PathBuf {
        match &self.spec.cwd {
            Some(cwd) => cwd.clone(),
            None => std::env::current_dir().unwrap_or_else(|_| PathBuf::from(".")),
        }
    }

    fn failure(&self, message: String) -> ToolResult {
        ToolResult::failure(message)
    }

    fn cannot_start(&self, error: std::io::Error) -> ToolResult {
        ToolResult::failure(format!(
            "cannot start {:?} for {:?}: {error}",
            self.spec.program, self.name
        ))
    }
}
