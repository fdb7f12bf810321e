//! What an id given to `toolwire approvals answer` or `resume` names: a waiting call, by its
//! request's id or its own; or, for `resume`, a paused agent run.

use std::fmt;

use toolwire::{Answer, Receipt, Registry};
use toolwire_journal::PausedRun;

use super::{Journal, failed};
use crate::exit::CliError;

/// What an answer went to.
pub(crate) enum Answered {
    /// A journaled call or a paused run.
    Call(Waiter),
    /// The MCP task with this id.
    Task(String),
}

impl std::fmt::Display for Answered {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Self::Call(waiter) => waiter.fmt(f),
            Self::Task(id) if toolwire_mcp::server::is_parked_call(id) => {
                write!(f, "an MCP call; its client's next retry runs with this answer")
            }
            Self::Task(id) => {
                write!(f, "MCP task {id}; its server resumes it at the next tasks/get")
            }
        }
    }
}

/// A call that waits on a request: a journaled call, or a call of a paused agent run.
#[derive(Debug, Clone)]
pub(crate) struct Waiter {
    /// The call's id.
    pub(crate) call_id: String,
    /// The id of the request it waits on.
    pub(crate) request_id: String,
    /// The tool.
    pub(crate) tool: String,
    /// The paused run it belongs to, if any.
    pub(crate) run_id: Option<String>,
}

impl fmt::Display for Waiter {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let (call, tool, request) = (&self.call_id, &self.tool, &self.request_id);
        write!(f, "call {call} of {tool:?} (request {request}")?;
        match &self.run_id {
            Some(run) => write!(f, ", in run {run})"),
            None => f.write_str(")"),
        }
    }
}

/// What `approvals resume ID` continues.
#[derive(Debug)]
pub(crate) enum Resumable {
    /// A journaled call, to run again with its answer.
    Call(Waiter),
    /// A paused agent run, named by its id or by one of its calls.
    Run {
        /// The run.
        run: Box<PausedRun>,
        /// The call of the run the id named, if it named one.
        through: Option<Waiter>,
    },
}

impl Journal {
    /// Every call that waits on a request: the journal's own, then those of paused runs.
    async fn waiters(&self) -> Result<Vec<Waiter>, CliError> {
        let mut waiters: Vec<Waiter> = (self.waiting().await?.into_iter())
            .map(|w| Waiter {
                call_id: w.call_id,
                request_id: w.request.id,
                tool: w.tool,
                run_id: None,
            })
            .collect();
        for run in self.paused_runs().await? {
            waiters.extend(run.waiting.into_iter().map(|wait| Waiter {
                call_id: wait.call_id,
                request_id: wait.request.id,
                tool: wait.tool,
                run_id: Some(run.run_id.clone()),
            }));
        }
        Ok(waiters)
    }

    /// The waiting call `id` names: the one whose request has that id, or else the one whose
    /// call has it; `None` when none does.
    ///
    /// # Errors
    ///
    /// A usage error listing the calls, when several have that call id.
    pub(crate) async fn waiter(&self, id: &str) -> Result<Option<Waiter>, CliError> {
        let waiters = self.waiters().await?;
        if let Some(found) = waiters.iter().find(|w| w.request_id == id) {
            return Ok(Some(found.clone()));
        }
        let mut named: Vec<Waiter> = waiters.into_iter().filter(|w| w.call_id == id).collect();
        if named.len() > 1 {
            let list: Vec<String> = named.iter().map(|w| format!("  {w}")).collect();
            return Err(CliError::usage(format!(
                "{id:?} is the id of {} waiting calls; give the request's id instead:\n{}",
                named.len(),
                list.join("\n")
            )));
        }
        Ok(named.pop())
    }

    /// Records `answer` for the waiting call `id` names (by its request's id or its own):
    /// the answer's id is set to the request's.
    ///
    /// # Errors
    ///
    /// A usage error when `id` names no waiting call, or several; a journal failure, such as
    /// a request answered already.
    pub(crate) async fn answer(&self, id: &str, mut answer: Answer) -> Result<Answered, CliError> {
        let Some(waiter) = self.waiter(id).await? else {
            // An MCP task's question, asked through `toolwire serve`: the server resumes the
            // call with the answer at its client's next `tasks/get`.
            answer.id = id.to_owned();
            if let Some(task) = self.inner.answer_task(&answer).await.map_err(failed)? {
                return Ok(Answered::Task(task));
            }
            return Err(CliError::usage(format!(
                "no call, run or MCP task waits on request or call {id:?} in the journal \
                 (`toolwire approvals list` shows those that do)"
            )));
        };
        answer.id = waiter.request_id.clone();
        match waiter.run_id {
            Some(_) => self.inner.answer_run(&answer).await.map(drop),
            None => self.inner.answer(answer).await.map(drop),
        }
        .map_err(failed)?;
        Ok(Answered::Call(waiter))
    }

    /// The MCP tasks whose question waits for an answer, oldest first.
    pub(crate) async fn waiting_tasks(&self) -> Result<Vec<toolwire::tasks::TaskRecord>, CliError> {
        self.inner.waiting_tasks().await.map_err(failed)
    }

    /// What `id` names to resume: a paused run (by its id, or the id of one of its calls or
    /// requests), or a journaled call (by its call's or its request's id).
    ///
    /// # Errors
    ///
    /// A usage error when `id` names nothing that waits, or several calls.
    pub(crate) async fn resumable(&self, id: &str) -> Result<Resumable, CliError> {
        if let Some(run) = self.paused_run(id).await? {
            return Ok(Resumable::Run { run: Box::new(run), through: None });
        }
        let gone = || {
            CliError::usage(format!(
                "no call or agent run {id:?} waits in the journal \
                 (`toolwire approvals list` shows those that do)"
            ))
        };
        let waiter = self.waiter(id).await?.ok_or_else(gone)?;
        let Some(run_id) = waiter.run_id.clone() else { return Ok(Resumable::Call(waiter)) };
        let run = self.paused_run(&run_id).await?.ok_or_else(gone)?;
        Ok(Resumable::Run { run: Box::new(run), through: Some(waiter) })
    }

    /// Runs the journaled call of `waiter` again, with the answer recorded for it.
    ///
    /// # Errors
    ///
    /// A journal failure: no answer yet, or resumed elsewhere.
    pub(crate) async fn resume_call(
        &self,
        registry: &Registry,
        waiter: &Waiter,
    ) -> Result<Receipt, CliError> {
        self.inner.resume(registry, &waiter.request_id).await.map_err(failed)
    }
}
