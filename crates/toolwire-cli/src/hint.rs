//! The commands the program tells the user to run next, written out in full: with the
//! `--manifest` and `--journal` this run was given, so they can be pasted as they are.

use std::path::Path;
use std::time::Duration;

use crate::cli::DEFAULT_MANIFEST;

/// Where this run found its manifest and journal, and how it holds the journal's calls.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Places<'a> {
    /// The manifest, as given (or the default).
    pub(crate) manifest: &'a Path,
    /// The journal, when given.
    pub(crate) journal: Option<&'a Path>,
    /// The lease of the journal's running calls, when given (`--lease`, `TOOLWIRE_LEASE`).
    pub(crate) lease: Option<Duration>,
}

impl Places<'_> {
    /// `toolwire approvals answer ID`, at this journal.
    pub(crate) fn answer(&self, id: &str) -> String {
        format!("toolwire approvals answer {}{}", quote(id), self.journal_flag())
    }

    /// `toolwire approvals resume ID`, with this manifest and journal.
    pub(crate) fn resume(&self, id: &str) -> String {
        format!(
            "toolwire approvals resume {}{}{}",
            quote(id),
            self.manifest_flag(),
            self.journal_flag()
        )
    }

    /// `toolwire resolve CALL_ID VERDICT`, at this journal.
    pub(crate) fn resolve(&self, call_id: &str, verdict: &str) -> String {
        format!("toolwire resolve {} {verdict}{}", quote(call_id), self.journal_flag())
    }

    fn manifest_flag(&self) -> String {
        if self.manifest == Path::new(DEFAULT_MANIFEST) {
            return String::new();
        }
        format!(" --manifest {}", quote(&self.manifest.display().to_string()))
    }

    fn journal_flag(&self) -> String {
        self.journal.map_or_else(String::new, |path| {
            format!(" --journal {}", quote(&path.display().to_string()))
        })
    }
}

/// `text` as one shell word: as it is when that is safe, otherwise in single quotes.
fn quote(text: &str) -> String {
    let safe = |c: char| c.is_ascii_alphanumeric() || "-_./:=@%+,".contains(c);
    if !text.is_empty() && text.chars().all(safe) {
        return text.to_owned();
    }
    format!("'{}'", text.replace('\'', r"'\''"))
}
