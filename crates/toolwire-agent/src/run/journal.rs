//! A toolwire journal as a [`RunStore`]: paused runs in SQLite or PostgreSQL, answered and
//! resumed by any process sharing the journal.

use toolwire_journal::{Journal, JournalError, JournalErrorKind, PausedRun};

use super::state::RunState;
use super::store::{RunStore, StoredRun};
use crate::client::BoxFuture;
use crate::{Error, ErrorKind};

/// Keeps each pending run as a paused run of the journal, labelled `provider:model`, with
/// its waiting calls' requests, so that `Journal::answer_run` can record answers to them
/// from any process and [`Agent::resume_stored`](crate::Agent::resume_stored) uses them.
///
/// Seal the registry with [`Journal::approval_key`] in every process that resumes runs,
/// so that an approval asked in one passes in another.
impl RunStore for Journal {
    fn save<'a>(&'a self, state: &'a RunState) -> BoxFuture<'a, Result<(), Error>> {
        Box::pin(async move {
            let json = serde_json::to_value(state).map_err(|e| {
                Error::new(ErrorKind::Store, format!("cannot encode run {:?}: {e}", state.run_id))
            })?;
            let label = format!("{}:{}", state.provider, state.model);
            let mut run = PausedRun::new(state.run_id.clone(), label, json);
            for call in state.requests() {
                run = run.wait(call.call_id.to_string(), call.tool, call.request);
            }
            self.save_run(&run).await.map_err(|e| failed("save", &state.run_id, e))
        })
    }

    fn load<'a>(&'a self, run_id: &'a str) -> BoxFuture<'a, Result<Option<RunState>, Error>> {
        Box::pin(async move {
            let run = self.run(run_id).await.map_err(|e| failed("load", run_id, e))?;
            run.map(|run| decode(run_id, run.state)).transpose()
        })
    }

    fn remove<'a>(&'a self, run_id: &'a str) -> BoxFuture<'a, Result<(), Error>> {
        Box::pin(async move {
            self.remove_run(run_id).await.map(drop).map_err(|e| failed("remove", run_id, e))
        })
    }

    fn claim<'a>(&'a self, run_id: &'a str) -> BoxFuture<'a, Result<Option<StoredRun>, Error>> {
        Box::pin(async move {
            let run = match self.claim_run(run_id).await {
                Ok(run) => run,
                Err(e) if e.kind() == JournalErrorKind::UnknownRun => return Ok(None),
                Err(e) => return Err(failed("claim", run_id, e)),
            };
            let answers = run.answers().cloned().collect();
            Ok(Some(StoredRun::new(decode(run_id, run.state)?).with_answers(answers)))
        })
    }

    fn release<'a>(&'a self, run_id: &'a str) -> BoxFuture<'a, Result<(), Error>> {
        Box::pin(async move {
            self.release_run(run_id).await.map(drop).map_err(|e| failed("release", run_id, e))
        })
    }
}

/// A run's state read back from the journal.
fn decode(run_id: &str, state: serde_json::Value) -> Result<RunState, Error> {
    serde_json::from_value(state).map_err(|e| {
        let text = format!("the journal's run {run_id:?} is not a toolwire-agent run state: {e}");
        Error::new(ErrorKind::Store, text)
    })
}

fn failed(doing: &str, run_id: &str, error: JournalError) -> Error {
    Error::new(ErrorKind::Store, format!("cannot {doing} run {run_id:?}: {error}"))
        .with_source(error)
}
