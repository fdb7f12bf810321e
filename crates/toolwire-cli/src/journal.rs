//! The journal the CLI works over: exactly-once calls by call id, durable approvals, and the
//! audit trail.
//!
//! Everything the commands need from it is here, so that wiring `toolwire-journal` in is a
//! change to this file alone: [`open`] opens its SQLite journal at the path, and each method
//! forwards to it. Until that crate is built in, [`open`] fails with a clear error, and no
//! command pretends to have used a journal.

use std::convert::Infallible;
use std::path::{Path, PathBuf};

use serde_json::Value;
use toolwire::{Answer, Receipt, Registry, Request};

use crate::exit::CliError;

/// An open journal. (It cannot be made until `toolwire-journal` is built in.)
#[derive(Debug)]
pub(crate) struct Journal {
    never: Infallible,
}

/// A call that waits for an approval.
#[derive(Debug)]
pub(crate) struct Waiting {
    /// The call's id.
    pub(crate) call_id: String,
    /// The tool.
    pub(crate) tool: String,
    /// What the human is asked.
    pub(crate) request: Request,
}

/// The journal at `path`, or at the default path.
///
/// # Errors
///
/// Always, for now: the journal is not built into this binary yet.
pub(crate) fn open(path: Option<&Path>) -> Result<Journal, CliError> {
    let path = match path {
        Some(path) => path.to_path_buf(),
        None => default_path()?,
    };
    Err(CliError::usage(format!(
        "the journal is not built into this toolwire yet (it comes with the toolwire-journal crate); \
         it would be {}",
        path.display()
    )))
}

/// `journal.sqlite` in the platform's data folder, such as `~/.local/share/toolwire` on Linux.
///
/// # Errors
///
/// When the platform has no home folder to put it in.
pub(crate) fn default_path() -> Result<PathBuf, CliError> {
    directories::ProjectDirs::from("", "", "toolwire")
        .map(|dirs| dirs.data_dir().join("journal.sqlite"))
        .ok_or_else(|| {
            CliError::usage("no home folder to keep the journal in: pass --journal PATH")
        })
}

impl Journal {
    /// Runs a call once under `call_id`: a completed id returns its recorded receipt without
    /// running again, and an id a crash cut off returns an unknown outcome unless the tool is
    /// idempotent.
    pub(crate) async fn call(
        &self,
        _registry: &Registry,
        _tool: &str,
        _input: Value,
        _call_id: &str,
    ) -> Result<Receipt, CliError> {
        match self.never {}
    }

    /// The calls that wait for an approval.
    pub(crate) async fn waiting(&self) -> Result<Vec<Waiting>, CliError> {
        match self.never {}
    }

    /// Records a human's answer to a waiting request.
    pub(crate) async fn answer(&self, _answer: Answer) -> Result<(), CliError> {
        match self.never {}
    }

    /// Runs an answered call again under its call id.
    pub(crate) async fn resume(
        &self,
        _registry: &Registry,
        _call_id: &str,
    ) -> Result<Receipt, CliError> {
        match self.never {}
    }

    /// The last `limit` receipts, of `tool` only when given, oldest first.
    pub(crate) async fn log(
        &self,
        _limit: usize,
        _tool: Option<&str>,
    ) -> Result<Vec<Receipt>, CliError> {
        match self.never {}
    }
}
