//! What a command tool runs, and under which limits.

use std::path::{Path, PathBuf};
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
    /// A content part the result carries: stdout itself, or a file the program wrote, of a
    /// declared MIME type (see [`MediaOutput`]).
    pub media_output: Option<MediaOutput>,
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
            media_output: None,
            option_values: OptionValues::None,
            sandbox: Sandbox::default(),
            launcher: Launcher::default(),
        }
    }
}

/// A command's output as a content part of its result (an image, audio, a PDF), of a declared
/// MIME type: the bytes it writes to stdout, or a file it writes in its working folder.
///
/// The bytes are checked against the type by their magic numbers when the result is checked
/// (see `toolwire::media`), so a program that writes something else fails its call.
///
/// ```
/// use toolwire_process::MediaOutput;
///
/// let stdout = MediaOutput::stdout("image/png");
/// let file = MediaOutput::file("application/pdf", "out/report.pdf").unwrap();
/// assert_eq!(file.path().unwrap().to_str(), Some("out/report.pdf"));
/// assert!(MediaOutput::file("image/png", "../elsewhere.png").is_err());
/// # let _ = stdout;
/// ```
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct MediaOutput {
    mime_type: String,
    file: Option<PathBuf>,
}

impl MediaOutput {
    /// Stdout, whole, is a part of `mime_type`; the result has no text.
    pub fn stdout(mime_type: impl Into<String>) -> Self {
        Self { mime_type: mime_type.into(), file: None }
    }

    /// The file at `path` (relative to the working folder, with no `..`) is a part of
    /// `mime_type`, read after the program exits with success; stdout is the result's text.
    /// The file must be a regular file the call wrote (not older than the call), reached
    /// without a symlink, with no other hard link, and no larger than the output limit.
    ///
    /// # Errors
    ///
    /// A message when `path` is absolute, empty, or leaves the working folder.
    pub fn file(mime_type: impl Into<String>, path: impl Into<PathBuf>) -> Result<Self, String> {
        let path = path.into();
        let plain = path.components().all(|part| matches!(part, std::path::Component::Normal(_)));
        if path.as_os_str().is_empty() || !plain {
            return Err(format!(
                "the output file {} must be a path inside the working folder, such as \"out/chart.png\"",
                path.display()
            ));
        }
        Ok(Self { mime_type: mime_type.into(), file: Some(path) })
    }

    /// The declared MIME type.
    pub fn mime_type(&self) -> &str {
        &self.mime_type
    }

    /// The file, relative to the working folder; `None` for stdout.
    pub fn path(&self) -> Option<&Path> {
        self.file.as_deref()
    }
}
