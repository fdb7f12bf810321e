//! [`Job`]: a write on its way to the store, carrying its own typed reply (as a request to
//! `tower::buffer` carries its oneshot sender), so that each caller gets the output of the
//! write it made and never matches a reply enum.

use sqlx::AnyConnection;
use tokio::sync::oneshot;

use super::BoxFuture;
#[cfg(feature = "sqlite")]
use super::ops::Grouped;
use super::ops::{Cx, Write};
use crate::error::{JournalError, JournalErrorKind};

/// Where the output of a write of `W` goes.
pub(crate) type ReplyTo<W> = oneshot::Sender<Result<<W as Write>::Output, JournalError>>;

/// A write of any kind, as the backends run it: inside a transaction, its output held until
/// the commit, then sent to its caller.
pub(crate) trait Job: Send {
    /// Runs the write on `conn`, inside a transaction, and holds its output.
    fn run<'a>(
        &'a mut self,
        conn: &'a mut AnyConnection,
        cx: &'a Cx<'_>,
    ) -> BoxFuture<'a, Result<(), JournalError>>;

    /// The statement this write may share with others of its kind.
    #[cfg(feature = "sqlite")]
    fn grouped(&self) -> Option<Grouped<'_>>;

    /// Takes what a shared statement did for this write (`won`: its row was the one
    /// written); the write then holds its output, unless it must still run on its own.
    #[cfg(feature = "sqlite")]
    fn settle(&mut self, won: bool);

    /// Whether the write holds its output, waiting for the commit.
    #[cfg(feature = "sqlite")]
    fn is_settled(&self) -> bool;

    /// Drops the output held: the transaction was rolled back, and the write runs again.
    fn forget(&mut self);

    /// Sends the output, once `committed` is `Ok`; or else its error.
    fn answer(self: Box<Self>, committed: Result<(), JournalError>);
}

/// A write of `W`, its output once it ran, and its caller's reply.
pub(crate) struct Pending<W: Write> {
    write: W,
    output: Option<W::Output>,
    reply: ReplyTo<W>,
}

impl<W: Write> Pending<W> {
    /// `write`, whose output goes to `reply`.
    pub(crate) fn new(write: W, reply: ReplyTo<W>) -> Self {
        Self { write, output: None, reply }
    }
}

impl<W: Write> Job for Pending<W> {
    fn run<'a>(
        &'a mut self,
        conn: &'a mut AnyConnection,
        cx: &'a Cx<'_>,
    ) -> BoxFuture<'a, Result<(), JournalError>> {
        Box::pin(async move {
            self.output = Some(self.write.run(conn, cx).await?);
            Ok(())
        })
    }

    #[cfg(feature = "sqlite")]
    fn grouped(&self) -> Option<Grouped<'_>> {
        self.write.grouped()
    }

    #[cfg(feature = "sqlite")]
    fn settle(&mut self, won: bool) {
        self.output = W::grouped_output(won);
    }

    #[cfg(feature = "sqlite")]
    fn is_settled(&self) -> bool {
        self.output.is_some()
    }

    fn forget(&mut self) {
        self.output = None;
    }

    fn answer(self: Box<Self>, committed: Result<(), JournalError>) {
        let Pending { write, output, reply } = *self;
        let outcome = committed.and_then(|()| output.ok_or_else(|| never_ran(&write)));
        let _ = reply.send(outcome);
    }
}

/// The error for a write committed before it ran: a backend's bug, reported, not hidden.
fn never_ran(write: &impl Write) -> JournalError {
    let text = format!("the journal's store committed a write before running it: {write:?}");
    JournalError::new(JournalErrorKind::Database, text)
}
