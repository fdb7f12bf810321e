//! Exactly-once execution and durable approvals for [toolwire]: a journal of tool
//! calls, keyed by call id, in SQLite (one file, the embedded default) or PostgreSQL (many
//! processes, on one machine or many).
//!
//! A journaled call records "started" before its handler runs and "completed", with its
//! receipt, after. When a call id comes in again:
//!
//! - **completed before**: the recorded receipt is returned, checked through the tool's
//!   [`parse_output`](toolwire::ToolBuilder::parse_output), and the handler does not run;
//! - **same id, different arguments** (or another tool): it fails closed, as
//!   [`Denied`](toolwire::FailureKind::Denied), saying so; arguments are compared by the
//!   digest of their canonical JSON ([`call_digest`](toolwire::policy::call_digest));
//! - **running elsewhere, under a live lease**: the call waits for that result, up to its
//!   deadline, or fails as [`InProgress`](toolwire::FailureKind::InProgress) (not
//!   [`TimedOut`](toolwire::FailureKind::TimedOut): the call did not run here); it never runs a
//!   second time;
//! - **started, never completed** (the process died): an
//!   [idempotent](toolwire::ToolBuilder::idempotent) tool runs again; any other fails as
//!   [`UnknownOutcome`](toolwire::FailureKind::UnknownOutcome), and the journal keeps it so
//!   until the host [resolves](Journal::resolve) it.
//!
//! A call that suspends (a pending result: a policy's approval, or a handler's own
//! [`Request`](toolwire::Request)) is stored with its tool, arguments, call id, invocation id,
//! request and expiry. Any process sharing the journal can then [list](Journal::pending),
//! [answer](Journal::answer), [resume](Journal::resume) or [expire](Journal::expire_due) it.
//! Every receipt goes to an [audit log](Journal::receipts): of the calls that ran, and of the
//! journal's own refusals above (a reused call id, an unknown outcome, a call in progress
//! elsewhere, a wait aborted by the caller's signal), and of calls the registry failed
//! before they ran (an unknown tool, arguments it cannot read). A replay adds nothing: it
//! returns a receipt the log holds already. The journal's own receipts are not handed to the
//! registry's [`on_receipt`](toolwire::RegistryBuilder::on_receipt) hook, which sees only the
//! calls that go through the registry.
//!
//! An agent run that ends waiting for approvals is kept as a [`PausedRun`]: its state (opaque
//! JSON) and the requests its calls wait on. Any process can [list](Journal::runs) it,
//! [answer](Journal::answer_run) its requests, and [claim](Journal::claim_run) it to resume,
//! one claim at a time. `toolwire-agent`'s `journal` feature makes a `Journal` the agent's run
//! store, so that is done for you.
//!
//! ```
//! # #[tokio::main(flavor = "current_thread")] async fn main() -> Result<(), Box<dyn std::error::Error>> {
//! use serde_json::json;
//! use toolwire::{Answer, Registry, Tool, ToolResult};
//! use toolwire_journal::{Journal, PendingFilter};
//!
//! let dir = tempfile::tempdir()?;
//! let journal = Journal::open(&format!("sqlite:{}", dir.path().join("calls.db").display())).await?;
//! let deploy = Tool::define("deploy")
//!     .needs_approval(true)
//!     .execute_sync(|args, _| ToolResult::ok(args.clone(), "deployed"))
//!     .build()?;
//! // Every process sharing the journal seals its registry with the journal's approval key.
//! let registry = Registry::builder()
//!     .register(deploy)
//!     .approval_key(journal.approval_key())
//!     .approval_store(journal.clone()) // each approval runs one call, across processes
//!     .seal()?;
//!
//! let parked = journal.invoke(&registry, "deploy", json!({"env": "prod"})).call_id("c1").await?;
//! assert!(parked.result.pending_request().is_some());
//!
//! // Later, maybe in another process after a restart:
//! let waiting = journal.pending(&PendingFilter::all().kind("approval")).await?;
//! let request_id = waiting[0].request.id.clone();
//! journal.answer(Answer::accept(request_id.clone(), json!(null))).await?;
//! let done = journal.resume(&registry, &request_id).await?;
//! assert!(done.result.is_success());
//! # Ok(()) }
//! ```
//!
//! # Backends, features and URLs
//!
//! Each backend is a Cargo feature, as in sqlx: `sqlite` (the default) and `postgres`. A
//! program that uses SQLite builds no PostgreSQL driver; one that uses PostgreSQL only can
//! take `default-features = false, features = ["postgres"]`.
//!
//! - `sqlite:PATH` (or a plain path): an SQLite file, made on first use; any file name works,
//!   spaces, `?`, `#` and `%` included.
//! - `postgres://user:password@host:port/database?sslmode=...`: a PostgreSQL database. The
//!   URL takes libpq's parameters. `sslmode` is `disable`, `prefer` (the default: TLS when the
//!   server offers it), `require` (TLS, any certificate), `verify-ca` (TLS, a certificate of a
//!   trusted authority) or `verify-full` (and for the host name); `allow` is taken as
//!   `disable`. `sslrootcert=/path/ca.pem` names the authorities to trust (otherwise the
//!   system's roots); `sslcert` and `sslkey` give a client certificate. TLS is rustls with
//!   the `ring` provider. Managed PostgreSQL services ask for `sslmode=verify-full`, often
//!   with their CA's `sslrootcert`; a server that cannot give the TLS asked for fails to open
//!   with an error that says so.
//!
//! # Guarantees and their limits
//!
//! **At most once per call id.** A handler runs only after its "started" record is committed,
//! and only by the process that won the claim: the claim is one conditional insert or
//! update, atomic in both backends, so of any number of processes delivering one call id at
//! once exactly one runs it and the others replay, wait or are refused. If the journal cannot
//! record the start (locked, full, unreachable), the handler does not run and the caller gets
//! a [`JournalError`].
//!
//! **Exactly once, unless a process dies mid-call.** If the process dies after the start and
//! before the completion is committed, the journal cannot know whether the side effect
//! happened. It does not guess: the call becomes an unknown outcome, which the host resolves
//! with [`Journal::resolve`], except for tools declared idempotent, which run again. A
//! handler that returns but whose completion cannot be committed gives a [`JournalError`]
//! carrying the receipt ([`JournalError::receipt`]), and the call is then an unknown outcome
//! too. Nothing outside the journal is rolled back: exactly-once of an external effect needs
//! an idempotent tool, or a host that checks the effect before resolving.
//!
//! **Leases.** A running call's lease (30 s by default, see [`JournalOptions::lease`]) is
//! renewed while the handler runs. A process that stalls for longer than its lease (a long
//! GC-like pause, a suspended VM) looks dead: its call is then marked unknown, or, for an
//! idempotent tool, taken over; its own completion still lands if nobody took the call over.
//! Clocks of processes sharing a PostgreSQL journal must agree to well within the lease.
//!
//! **Durability.** A completion is reported only after its commit: SQLite runs in WAL mode
//! with `synchronous = FULL`, so a committed record survives a process kill and a power
//! loss; PostgreSQL's durability is the server's (`fsync`, `synchronous_commit`). Concurrent
//! SQLite writes are committed together, one fsync per group.
//!
//! **Approvals.** An answer is stored only for a pending request whose digest (tool,
//! canonical arguments, call id) is that of the call the journal holds; the first answer wins;
//! a lapsed request resolves as declined ("expired") and its call completes as denied. The
//! answer's HMAC binding is checked again by the registry on resume, which must be sealed with
//! [`Journal::approval_key`]; the key is stored in the journal, so whoever can read the
//! journal can mint approvals, and whoever can write it can record answers: guard it as you
//! would the key. A resume claims the call atomically: of two racing resumes one
//! runs it, the other gets [`JournalErrorKind::AlreadyResumed`].
//!
//! **Single use.** A `Journal` is also an [`ApprovalStore`](toolwire::policy::ApprovalStore):
//! seal each process's registry with
//! [`approval_store(journal.clone())`](toolwire::RegistryBuilder::approval_store) and every
//! approval (or answer to a handler's own request) that starts a call is recorded in the
//! journal first, with one conditional insert, so it opens one run across every process
//! sharing the journal and across restarts; a second use is refused as
//! [`Denied`](toolwire::FailureKind::Denied). If the journal cannot record it, the call fails
//! closed. Without it, each registry keeps its spent approvals in its own memory.
//!
//! A process that dies while resuming a call leaves it like any other call that died: an
//! unknown outcome, or for an idempotent tool a call that runs again on its next delivery,
//! which then runs without the answer (a policy asks again).
//!
//! **Paused agent runs.** A run's answers are recorded first-wins, like a call's; the journal
//! does not check their binding, which the registry checks when the run resumes. A resume
//! [claims](Journal::claim_run) the run for [`JournalOptions::run_claim`] (10 minutes by
//! default) and lets go when it saves or removes the run. A resume whose process dies holds
//! the run until the claim lapses; after that another resume may run the answered calls
//! again, since a run's calls are not journaled by call id, unless its registry spends
//! approvals in the journal (above): then an approval the dead resume spent is refused.
//! Give such tools idempotent handlers, or journal their effects yourself.
//!
//! **Limits.** Replays return the stored receipt (the output parser runs again on it), not a
//! fresh run; a call without a call id cannot be journaled; calls of an unknown tool or with
//! arguments nested past the tool's limits run through the registry unjournaled (no record
//! keyed by their call id, only their receipt in the audit log), since they run nothing. A PostgreSQL journal keeps its tables and sqlx's `_sqlx_migrations` in the
//! connection's current schema: give it a database or schema of its own.

#![forbid(unsafe_code)]

#[cfg(not(any(feature = "sqlite", feature = "postgres")))]
compile_error!(
    "toolwire-journal needs a backend: enable its `sqlite` feature, `postgres`, or both"
);

mod error;
mod journal;
mod store;

pub use error::{JournalError, JournalErrorKind};
pub use journal::{
    AuditQuery, CallRecord, CallState, Journal, JournalOptions, JournaledCall, JournaledDispatch,
    JournaledDispatchFuture, JournaledFuture, PausedRun, PendingFilter, Resolution, RunRequest,
    Suspension,
};
