//! [`JournalError`]: why the journal could not do what was asked.

use std::fmt;

use toolwire::Receipt;

/// Why a journal operation failed. Nothing the journal had recorded before is lost by it.
///
/// Read the reason with [`kind`](Self::kind); the database's own error, if any, is the
/// [`source`](std::error::Error::source).
#[derive(Debug)]
pub struct JournalError {
    kind: JournalErrorKind,
    message: String,
    source: Option<Box<dyn std::error::Error + Send + Sync>>,
    receipt: Option<Box<Receipt>>,
}

/// Why a journal operation failed. New kinds may be added.
#[non_exhaustive]
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum JournalErrorKind {
    /// The file or database exists but is not a journal.
    NotAJournal,
    /// The journal was written by a newer version of this crate, with a schema this one does
    /// not know.
    NewerSchema,
    /// The database stayed locked by another connection or process for longer than the busy
    /// timeout.
    Locked,
    /// The disk, or the journal's size cap, is full.
    DiskFull,
    /// The database could not be reached or opened.
    Unavailable,
    /// Any other error of the database.
    Database,
    /// A record read back from the journal could not be decoded.
    Corrupt,
    /// A journaled call was given no call id: the journal is keyed by it.
    MissingCallId,
    /// No suspended call waits on a request with this id.
    UnknownRequest,
    /// The request lapsed before it was answered; it is now resolved as declined.
    Expired,
    /// The request was answered before; the first answer stands.
    AlreadyAnswered,
    /// The answer does not belong to the call the request was made for.
    AnswerMismatch,
    /// The request has not been answered yet, so its call cannot be resumed.
    NotAnswered,
    /// The call was resumed already, or is being resumed by another process right now.
    AlreadyResumed,
    /// The call has no outcome the host could resolve: it is not of unknown outcome.
    NotUnknown,
    /// The journal holds no paused agent run with this id.
    UnknownRun,
}

impl JournalError {
    pub(crate) fn new(kind: JournalErrorKind, message: impl Into<String>) -> Self {
        Self { kind, message: message.into(), source: None, receipt: None }
    }

    pub(crate) fn with_source(
        mut self,
        source: impl Into<Box<dyn std::error::Error + Send + Sync>>,
    ) -> Self {
        self.source = Some(source.into());
        self
    }

    /// The same error, carrying the receipt of a call whose completion, or whose refusal,
    /// could not be recorded.
    pub(crate) fn with_receipt(mut self, receipt: Receipt) -> Self {
        self.receipt = Some(Box::new(receipt));
        self
    }

    /// Why the operation failed.
    pub fn kind(&self) -> JournalErrorKind {
        self.kind
    }

    /// The receipt of a call whose handler ran but whose completion the journal could not
    /// record. The journal still holds the call as started, so a later delivery of its call
    /// id gets an [`UnknownOutcome`](toolwire::FailureKind::UnknownOutcome) (or, for an
    /// idempotent tool, runs again) until the host resolves it.
    ///
    /// Also the receipt of a call that did not run (the journal refused it, or the registry
    /// failed it first) when that receipt could not be appended to the audit log.
    pub fn receipt(&self) -> Option<&Receipt> {
        self.receipt.as_deref()
    }

    /// Whether the database was locked by someone else.
    pub fn is_locked(&self) -> bool {
        self.kind == JournalErrorKind::Locked
    }

    /// Whether the disk or the size cap is full.
    pub fn is_disk_full(&self) -> bool {
        self.kind == JournalErrorKind::DiskFull
    }

    /// Builds the error for a failed database operation, `doing` what, in `where_`.
    pub(crate) fn database(doing: &str, where_: &str, error: sqlx::Error) -> Self {
        let kind = classify(&error);
        let what = match kind {
            _ if matches!(error, sqlx::Error::Tls(_)) => {
                "the TLS (SSL) connection that the URL's sslmode asks for failed"
            }
            _ if matches!(error, sqlx::Error::Configuration(_)) => "the URL cannot be used",
            JournalErrorKind::Locked => "the database is locked by another connection",
            JournalErrorKind::DiskFull => "the disk or the journal's size cap is full",
            JournalErrorKind::NotAJournal => "the file is not a journal (not an SQLite database)",
            JournalErrorKind::Unavailable => "the database cannot be reached",
            _ => "database error",
        };
        Self::new(kind, format!("cannot {doing} in {where_}: {what}: {error}")).with_source(error)
    }

    /// Builds the error for a record that does not decode.
    pub(crate) fn corrupt(what: &str, error: impl fmt::Display) -> Self {
        Self::new(
            JournalErrorKind::Corrupt,
            format!("the journal holds an unreadable {what}: {error}"),
        )
    }
}

/// The kind of a database error: SQLite's result codes, PostgreSQL's SQLSTATEs, I/O.
fn classify(error: &sqlx::Error) -> JournalErrorKind {
    match error {
        sqlx::Error::Database(db) => {
            let code = db.code().unwrap_or_default();
            #[cfg(feature = "postgres")]
            if db.try_downcast_ref::<sqlx::postgres::PgDatabaseError>().is_some() {
                return postgres_kind(&code);
            }
            sqlite_kind(code.parse::<i32>().unwrap_or(0))
        }
        sqlx::Error::Io(_) | sqlx::Error::PoolTimedOut | sqlx::Error::PoolClosed => {
            JournalErrorKind::Unavailable
        }
        sqlx::Error::Tls(_) | sqlx::Error::Configuration(_) => JournalErrorKind::Unavailable,
        _ => JournalErrorKind::Database,
    }
}

/// SQLite's (extended) result codes, by their primary code.
fn sqlite_kind(code: i32) -> JournalErrorKind {
    match code & 0xff {
        5 | 6 => JournalErrorKind::Locked,
        13 => JournalErrorKind::DiskFull,
        26 => JournalErrorKind::NotAJournal,
        14 => JournalErrorKind::Unavailable,
        _ => JournalErrorKind::Database,
    }
}

/// PostgreSQL's SQLSTATEs.
#[cfg(feature = "postgres")]
fn postgres_kind(code: &str) -> JournalErrorKind {
    match code {
        "53100" => JournalErrorKind::DiskFull,
        "55P03" => JournalErrorKind::Locked,
        _ if code.starts_with("08") || code.starts_with("57P") => JournalErrorKind::Unavailable,
        _ => JournalErrorKind::Database,
    }
}

impl fmt::Display for JournalError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.message)
    }
}

impl std::error::Error for JournalError {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        self.source.as_deref().map(|e| e as &(dyn std::error::Error + 'static))
    }
}
