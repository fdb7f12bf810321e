//! The journal the CLI works over (`toolwire-journal`, SQLite by default): exactly-once calls
//! by call id, durable approvals, and the audit trail.

use std::path::PathBuf;
use std::time::Duration;

use serde_json::Value;
use toolwire::policy::ApprovalKey;
use toolwire::{Answer, Receipt, Registry, Request};
use toolwire_journal::{
    AuditQuery, CallRecord, CallState, JournalError, JournalErrorKind, JournalOptions, PausedRun,
    PendingFilter, Resolution,
};

use crate::hint::Places;

use crate::exit::{CliError, Exit};

mod find;

pub(crate) use find::Resumable;

/// An open journal.
#[derive(Debug)]
pub(crate) struct Journal {
    inner: toolwire_journal::Journal,
    /// How long it holds a running call for its process.
    lease: Duration,
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

/// The journal of `places` (at the default path unless given), holding running calls for
/// the lease given; the file and its folder are made on first use.
///
/// # Errors
///
/// A usage error naming the file when it cannot be opened, or is not a journal.
pub(crate) async fn open(places: Places<'_>) -> Result<Journal, CliError> {
    let path = match places.journal {
        Some(path) => path.to_path_buf(),
        None => default_path()?,
    };
    let lease = places.lease.unwrap_or(JournalOptions::default().lease_duration());
    let options = JournalOptions::default().lease(lease);
    let text = path.to_string_lossy();
    // A PostgreSQL URL names a journal that many processes and machines share. Its errors
    // name it themselves, without the password; a file is named here.
    let (url, shown) = if is_postgres_url(&text) {
        (text.to_string(), String::new())
    } else {
        if let Some(folder) = path.parent().filter(|p| !p.as_os_str().is_empty()) {
            std::fs::create_dir_all(folder).map_err(|error| {
                CliError::usage(format!(
                    "cannot make the journal's folder {}: {error}",
                    folder.display()
                ))
            })?;
        }
        (format!("sqlite:{}", path.display()), format!(" {}", path.display()))
    };
    let inner = toolwire_journal::Journal::open_with(&url, options)
        .await
        .map_err(|error| CliError::usage(format!("cannot open the journal{shown}: {error}")))?;
    Ok(Journal { inner, lease })
}

/// Whether `text` is a PostgreSQL URL rather than the path of an SQLite file.
fn is_postgres_url(text: &str) -> bool {
    text.starts_with("postgres://") || text.starts_with("postgresql://")
}

/// `journal.sqlite` in the platform's data folder, such as `~/.local/share/toolwire` on Linux.
///
/// # Errors
///
/// When the platform has no home folder to put it in.
pub(crate) fn default_path() -> Result<PathBuf, CliError> {
    data_folder().map(|folder| folder.join("journal.sqlite")).ok_or_else(|| {
        CliError::usage("no home folder to keep the journal in: pass --journal PATH")
    })
}

/// The platform's data folder of toolwire, where the default journal lives, such as
/// `~/.local/share/toolwire` on Linux; `None` without a home folder.
pub(crate) fn data_folder() -> Option<PathBuf> {
    directories::ProjectDirs::from("", "", "toolwire").map(|dirs| dirs.data_dir().to_owned())
}

/// A journal failure, as the program's error.
/// The options of a call made as the local user.
fn as_local() -> toolwire::CallOptions {
    toolwire::CallOptions::new().principal(crate::principal::local_user())
}

fn failed(error: JournalError) -> CliError {
    CliError::with_exit(Exit::ToolFailure, format!("journal: {error}"))
}

impl Journal {
    /// The library's journal, to seal registries with as their approval store.
    pub(crate) fn library(&self) -> &toolwire_journal::Journal {
        &self.inner
    }

    /// The key a registry must be sealed with to resume this journal's approvals.
    pub(crate) fn approval_key(&self) -> ApprovalKey {
        self.inner.approval_key()
    }

    /// Runs a call once under `call_id`: a completed id returns its recorded receipt without
    /// running again, and an id a crash cut off returns an unknown outcome unless the tool is
    /// idempotent.
    pub(crate) async fn call(
        &self,
        registry: &Registry,
        tool: &str,
        input: Value,
        call_id: &str,
        timeout: Option<Duration>,
    ) -> Result<Receipt, CliError> {
        self.note_a_wait(call_id).await;
        let mut call =
            self.inner.invoke(registry, tool, input).call_id(call_id).options(as_local());
        if let Some(timeout) = timeout {
            call = call.timeout(timeout);
        }
        call.await.map_err(failed)
    }

    /// Says so on stderr when `call_id` is running: in another process, to be waited for, or
    /// in one that died, whose lease must lapse first.
    async fn note_a_wait(&self, call_id: &str) {
        let Ok(Some(record)) = self.inner.record(call_id).await else { return };
        if record.state == CallState::Running {
            eprintln!(
                "note: call {call_id:?} is running in another process, or in one that died: \
                 waiting for it to finish, or for its lease to lapse ({} from its last renewal \
                 if it was started with this lease; set it with --lease or TOOLWIRE_LEASE)",
                humantime::format_duration(self.lease)
            );
        }
    }

    /// Records `answer` for a journaled call's request (an answer given before stands), and
    /// runs the call with it.
    pub(crate) async fn answer_and_resume(
        &self,
        registry: &Registry,
        answer: Answer,
    ) -> Result<Receipt, CliError> {
        match self.inner.answer(answer.clone()).await {
            Ok(_) => {}
            Err(error) if error.kind() == JournalErrorKind::AlreadyAnswered => {}
            Err(error) => return Err(failed(error)),
        }
        // The call goes on as the one who resumes it: the local user.
        self.inner.resume(registry, &answer.id).options(as_local()).await.map_err(failed)
    }

    /// The calls that wait for an approval.
    pub(crate) async fn waiting(&self) -> Result<Vec<Waiting>, CliError> {
        let pending = self.inner.pending(&PendingFilter::all()).await.map_err(failed)?;
        Ok(pending
            .into_iter()
            .map(|s| Waiting {
                call_id: s.call.call_id.to_string(),
                tool: s.call.tool.to_string(),
                request: s.request,
            })
            .collect())
    }

    /// The agent runs that wait for approvals, oldest first.
    pub(crate) async fn paused_runs(&self) -> Result<Vec<PausedRun>, CliError> {
        self.inner.runs().await.map_err(failed)
    }

    /// The paused agent run `run_id`, if the journal holds it.
    pub(crate) async fn paused_run(&self, run_id: &str) -> Result<Option<PausedRun>, CliError> {
        self.inner.run(run_id).await.map_err(failed)
    }

    /// Appends `receipts` to the audit log; one that cannot be appended is reported on
    /// stderr, and the rest still go in.
    pub(crate) async fn append(&self, receipts: &[Receipt]) {
        for receipt in receipts {
            if let Err(error) = self.inner.append(receipt).await {
                eprintln!(
                    "warning: the journal's audit log lost a receipt of {}: {error}",
                    receipt.tool
                );
            }
        }
    }

    /// The journal as the store of the agent's pending runs.
    pub(crate) fn runs_store(&self) -> toolwire_journal::Journal {
        self.inner.clone()
    }

    /// What the journal holds of `call_id`, if anything.
    pub(crate) async fn record(&self, call_id: &str) -> Result<Option<CallRecord>, CliError> {
        self.inner.record(call_id).await.map_err(failed)
    }

    /// Settles the call of unknown outcome `call_id` as the host says it went.
    pub(crate) async fn resolve(
        &self,
        call_id: &str,
        resolution: Resolution,
    ) -> Result<(), CliError> {
        self.inner.resolve(call_id, resolution).await.map_err(failed)
    }

    /// The last `limit` receipts, of `tool` only when given.
    pub(crate) async fn log(
        &self,
        limit: usize,
        tool: Option<&str>,
    ) -> Result<Vec<Receipt>, CliError> {
        let mut query = AuditQuery::new().limit(u32::try_from(limit).unwrap_or(u32::MAX));
        if let Some(tool) = tool {
            query = query.tool(tool);
        }
        self.inner.receipts(&query).await.map_err(failed)
    }
}

#[cfg(test)]
mod tests {
    use super::is_postgres_url;

    #[test]
    fn a_postgres_url_is_told_from_a_path() {
        assert!(is_postgres_url("postgres://u:p@db:5432/toolwire"));
        assert!(is_postgres_url("postgresql://db/toolwire?sslmode=require"));
        assert!(!is_postgres_url("./postgres://not-a-url.sqlite"));
        assert!(!is_postgres_url("journal.sqlite"));
    }
}
