//! The commands over the journal: `approvals`, `resolve` and `log`.

use clap::{ArgGroup, Args, Subcommand};

use super::EXIT_CODES;

/// `toolwire approvals`.
#[derive(Debug, Subcommand)]
pub(crate) enum ApprovalsCommand {
    /// List the calls and agent runs that wait for an approval.
    ///
    /// One request per line, tab-separated: the request's id, the call's id, the tool, the
    /// prompt, and for a call of an agent run, `run RUN_ID`.
    List,
    /// Answer a waiting request: accept it, or decline it with a reason.
    ///
    /// The id is the request's, or its call's; it says which call it answered.
    Answer {
        /// The request's id, or the waiting call's id.
        id: String,
        /// Decline instead of accepting.
        #[arg(long)]
        decline: bool,
        /// Why the request was declined.
        #[arg(long, requires = "decline")]
        reason: Option<String>,
        /// The answer's content, as JSON: the fields of a form an MCP server asked to be
        /// filled in, such as '{"sure": true}'.
        #[arg(long, value_name = "JSON", conflicts_with = "decline")]
        data: Option<String>,
    },
    /// Run an answered call again, or continue a paused agent run.
    ///
    /// A call runs again under its call id, with its answer. A run continues with the
    /// answers recorded for it; its calls without one keep waiting. It says which call (and
    /// request) or run it resumes; an id shared by several waiting calls is refused.
    #[command(after_help = EXIT_CODES)]
    Resume {
        /// A paused run's id (as `toolwire run` printed it), or a waiting call's id or its
        /// request's (for a call of a run: that run).
        id: String,
        /// For a run: the model to continue with, as PROVIDER:MODEL; by default the one the
        /// run was made for.
        #[arg(long, value_name = "PROVIDER:MODEL")]
        model: Option<String>,
        /// For a run: send the model's requests to this server; by default the one the run
        /// was made with (`toolwire run --base-url`), if any.
        #[arg(long, value_name = "URL")]
        base_url: Option<String>,
        /// For a run: stop after this many model turns since its prompt; by default the
        /// limit the run was made with.
        #[arg(long, value_name = "N")]
        max_turns: Option<u32>,
    },
}

/// `toolwire resolve`.
#[derive(Debug, Args)]
#[command(group(ArgGroup::new("verdict").required(true).args(["succeeded", "failed", "did_not_run"])))]
pub(crate) struct ResolveArgs {
    /// The call's id, as `toolwire call --call-id` was given it.
    pub(crate) call_id: String,
    /// It took effect and succeeded: later calls with this id return this result.
    #[arg(long)]
    pub(crate) succeeded: bool,
    /// It took effect and failed: later calls with this id return this failure.
    #[arg(long)]
    pub(crate) failed: bool,
    /// It did not take effect: the next call with this id runs it.
    #[arg(long)]
    pub(crate) did_not_run: bool,
    /// The result's text, for --succeeded or --failed.
    #[arg(long, value_name = "TEXT", conflicts_with = "did_not_run")]
    pub(crate) text: Option<String>,
}

/// `toolwire log`.
///
/// One receipt per line, tab-separated: when the call started, the invocation's id, the
/// tool, the call's id (`-` without one), and the outcome: `ok`, `failed`, `pending` (it
/// waits for an approval) or `unknown` (a crash cut it off).
#[derive(Debug, Args)]
pub(crate) struct LogArgs {
    /// Show at most N entries, newest last.
    #[arg(long, short = 'n', value_name = "N", default_value_t = 50)]
    pub(crate) limit: usize,
    /// Show only the calls of this tool.
    #[arg(long, value_name = "NAME")]
    pub(crate) tool: Option<String>,
    /// Print JSON lines.
    #[arg(long)]
    pub(crate) json: bool,
}
