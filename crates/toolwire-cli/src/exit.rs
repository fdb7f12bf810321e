//! How the program ends: an exit code, and an error message for the ones that fail.

use std::fmt;
use std::process::ExitCode;

use toolwire::{FailureKind, ToolResult};

/// The exit codes, as `--help` documents them ([`crate::cli::EXIT_CODES`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Exit {
    /// 0: it worked.
    Success = 0,
    /// 1: the tool failed.
    ToolFailure = 1,
    /// 2: a usage or manifest error.
    Usage = 2,
    /// 3: the call waits for an approval.
    Pending = 3,
    /// 4: a crash cut the call off.
    UnknownOutcome = 4,
    /// 130: a signal (SIGINT, SIGTERM, SIGHUP) stopped the program.
    Interrupted = 130,
}

impl Exit {
    /// The code a call's result exits with.
    pub(crate) fn of(result: &ToolResult) -> Self {
        match result.failure_kind() {
            None => Exit::Success,
            Some(FailureKind::Pending) => Exit::Pending,
            Some(FailureKind::UnknownOutcome) => Exit::UnknownOutcome,
            Some(FailureKind::UnknownTool) => Exit::Usage,
            Some(_) => Exit::ToolFailure,
        }
    }
}

impl From<Exit> for ExitCode {
    fn from(exit: Exit) -> Self {
        ExitCode::from(exit as u8)
    }
}

/// A failure of the program itself, with the code it exits with.
#[derive(Debug)]
pub(crate) struct CliError {
    message: String,
    exit: Exit,
}

impl CliError {
    /// A usage or manifest error (exit code 2).
    pub(crate) fn usage(message: impl fmt::Display) -> Self {
        Self { message: message.to_string(), exit: Exit::Usage }
    }

    /// An error with its own exit code.
    pub(crate) fn with_exit(exit: Exit, message: impl fmt::Display) -> Self {
        Self { message: message.to_string(), exit }
    }

    /// The exit code.
    pub(crate) fn exit(&self) -> Exit {
        self.exit
    }
}

impl fmt::Display for CliError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.message)
    }
}

impl From<crate::manifest::ManifestError> for CliError {
    fn from(error: crate::manifest::ManifestError) -> Self {
        Self::usage(error)
    }
}
