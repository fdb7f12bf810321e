//! What a command tool runs, and under which limits.

use std::path::PathBuf;
use std::time::Duration;

use crate::argv::OptionValues;
use crate::launcher::protocol::Launcher;
use crate::sandbox::Sandbox;
use crate::template::Template;

/// How long a command may run when its spec does not say.
pub const DEFAULT_TIMEOUT: Duration = Duration::from_secs(30);

/// How many bytes a command may write to stdout when its spec does not say.
pub const DEFAULT_OUTPUT_LIMIT: u64 = 1024 * 1024;

/// A command tool's settings: the program, its argv templates, and what contains it.
///
/// ```
/// use toolwire_process::{CommandSpec, Template};
///
/// let mut spec = CommandSpec::new("echo", vec![Template::parse("{message}").unwrap()]);
/// spec.env = vec!["LANG".to_owned()];
/// assert_eq!(spec.timeout, toolwire_process::DEFAULT_TIMEOUT);
/// ```
#[derive(Debug, Clone)]
#[non_exhaustive]
pub struct CommandSpec {
    /// The program: a name looked up on `PATH`, or a path (relative to `cwd`).
    pub program: String,
    /// The argument templates, one per argv element; never split, never given to a shell.
    pub args: Vec<Template>,
    /// The working folder; the caller's when `None`.
    pub cwd: Option<PathBuf>,
    /// The environment variables passed on; every other one is removed.
    pub env: Vec<String>,
    /// How long the command may run before its process group is killed.
    pub timeout: Duration,
    /// How many bytes it may write to stdout.
    pub output_limit: u64,
    /// Whether stdout is JSON, which becomes the result's `json`.
    pub json_output: bool,
    /// The placeholders in option position that may take a value starting with `-`.
    pub option_values: OptionValues,
    /// The sandbox; [`Sandbox::default`] unless set.
    pub sandbox: Sandbox,
    /// The binary that applies the sandbox.
    pub launcher: Launcher,
}

impl CommandSpec {
    /// `program` with `args`, the default limits and the default sandbox.
    pub fn new(program: impl Into<String>, args: Vec<Template>) -> Self {
        Self {
            program: program.into(),
            args,
            cwd: None,
            env: Vec::new(),
            timeout: DEFAULT_TIMEOUT,
            output_limit: DEFAULT_OUTPUT_LIMIT,
            json_output: false,
            option_values: OptionValues::None,
            sandbox: Sandbox::default(),
            launcher: Launcher::default(),
        }
    }
}
