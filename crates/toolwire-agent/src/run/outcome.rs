//! [`RunOutcome`] and [`StopReason`]: how a run ended.

use toolwire::Receipt;

use super::state::RunState;
use crate::Error;
use crate::client::Finish;

/// Why a run stopped. Every run ends with one; none ends in a panic.
#[non_exhaustive]
#[derive(Debug)]
pub enum StopReason {
    /// The model ended its turn without calls; the reason it gave.
    Finished(Finish),
    /// The run reached the agent's turn limit; the last calls' results are in the history.
    TurnLimit(u32),
    /// Calls wait for a host's answers; see [`RunState::requests`], and continue with
    /// [`Agent::resume`](crate::Agent::resume).
    Pending,
    /// The model made the same call (same tool, same arguments) more often than the
    /// repetition limit allows; that call was not run again.
    Repetition {
        /// The tool it kept calling.
        tool: String,
        /// How often it made the call.
        times: u32,
    },
    /// The caller's signal aborted the run.
    Aborted,
    /// The model could not be reached, or its reply could not be read.
    ModelError(Error),
    /// Calls wait for answers, but the agent's [`RunStore`](crate::RunStore) failed to save
    /// the run; its state is in the outcome.
    StoreFailed(Error),
}

impl std::fmt::Display for StopReason {
    /// A short lowercase sentence saying why the run stopped.
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            StopReason::Finished(finish) => write!(f, "the model finished ({finish:?})"),
            StopReason::TurnLimit(turns) => write!(f, "the turn limit of {turns} was reached"),
            StopReason::Pending => f.write_str("calls wait for a human's answer"),
            StopReason::Repetition { tool, times } => {
                write!(f, "the model called {tool:?} with the same arguments {times} times")
            }
            StopReason::Aborted => f.write_str("the run was aborted"),
            StopReason::ModelError(error) => write!(f, "the model failed: {error}"),
            StopReason::StoreFailed(error) => {
                write!(f, "the pending run could not be saved: {error}")
            }
        }
    }
}

/// The end of a run: why it stopped, what the model said last, the receipts of the calls it
/// ran, and its state, from which it can be resumed or continued.
#[derive(Debug)]
pub struct RunOutcome {
    /// Why the run stopped.
    pub stop: StopReason,
    /// The text of the model's last turn.
    pub text: String,
    /// The receipts of every call run in this run (or this resumption), in order.
    pub receipts: Vec<Receipt>,
    /// The conversation and turn count; with pending calls when the run is pending.
    pub state: RunState,
}

impl RunOutcome {
    /// Whether the run waits for answers.
    pub fn is_pending(&self) -> bool {
        matches!(self.stop, StopReason::Pending)
    }

    /// Whether the model finished on its own.
    pub fn is_finished(&self) -> bool {
        matches!(self.stop, StopReason::Finished(_))
    }
}
