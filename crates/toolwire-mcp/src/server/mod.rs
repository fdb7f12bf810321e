//! Serving a [`Registry`] over MCP: stdio, and streamable HTTP behind
//! toolwire's own checks.
//!
//! [`McpServer`] is an rmcp [`ServerHandler`](rmcp::ServerHandler): `tools/list` lists the
//! registry's tools in their MCP shape, and every `tools/call` runs through the registry's
//! pipeline (validation, policy, authorization, receipts), with the JSON-RPC request id as
//! its call id. A registry that defers tools (see
//! [`Registry::is_deferred`](toolwire::Registry::is_deferred)) lists a client in a session
//! (2025-11-25) its loaded tools and
//! [`SEARCH_TOOL`](toolwire::registry::SEARCH_TOOL), adds each search's finds to that
//! session's list with `notifications/tools/list_changed`, and refuses a deferred tool no
//! search of the session found; a 2026-07-28 client, with no session, is listed every tool.
//!
//! - A success gives `content` (the result's text) and `structuredContent` (its JSON, when
//!   it is an object). Every failure is a result with `isError: true` and a readable text,
//!   never a JSON-RPC error; an unknown tool is a JSON-RPC error, as the specification says.
//! - [`ToolContext::progress`](toolwire::ToolContext::progress) becomes
//!   `notifications/progress` when the request carried a `progressToken`, and
//!   [`ToolContext::emit`](toolwire::ToolContext::emit) becomes `notifications/message`,
//!   filtered by the level the client set with `logging/setLevel` (on 2026-07-28, by the
//!   request's own `_meta` log level; none without one).
//! - `notifications/cancelled` aborts the call through its signal: the handler's future is
//!   dropped, and no response is sent.
//! - Both protocol revisions are served. A 2025-11-25 client opens a session with
//!   `initialize`; a 2026-07-28 client sends each request on its own (`server/discover`,
//!   `_meta` on every request), and every result carries `resultType`. Over HTTP with
//!   `HttpOptions::json_response` (the default), a plain 2026-07-28 `tools/call` (a first
//!   round, not a task, asking for no progress and no log messages) is answered in front of
//!   rmcp's per-request service, with the same checks and the same reply.
//! - A pending result (a handler's [`Request`](toolwire::Request), or an approval a policy
//!   asked for) is put to the client:
//!   - on 2025-11-25, as `elicitation/create` when the client declared elicitation, and the
//!     call is retried in the same `tools/call` with the client's answer; a client without
//!     elicitation gets an `isError` result carrying the prompt;
//!   - on 2026-07-28 (SEP-2322), as an `InputRequiredResult`: the request as a form (or URL)
//!     elicitation under its kind's key (`approval`, `input`), and a `requestState` sealed
//!     with the registry's [`ApprovalKey`](toolwire::policy::ApprovalKey). The client's
//!     retry, with its `inputResponses` and the state, resumes the call. The state is bound
//!     to the tool, the call's digest (canonical arguments and call id) and the bearer token
//!     that asked, lapses after [`McpServer::request_state_ttl`], and is spent once in the
//!     registry's approval store, so servers that share a key and a store (a journal) accept
//!     each other's states, once. A state that was changed, forged, replayed or expired, or
//!     made for another tool, other arguments or another client, is a JSON-RPC error
//!     (`-32602`) and nothing runs. Responses that leave out the question ask it again with a
//!     new state. A client that declared no elicitation gets `-32021`, naming it.
//!   - A handler that speaks MCP returns a request of kind [`INPUT_REQUESTS_KIND`] whose
//!     data is MCP `inputRequests` (elicitation, sampling, roots); the ones the client can
//!     answer are passed on, and the retry's answer holds the responses by key.
//! - Long calls become tasks (the tasks extension of 2026-07-28, SEP-2663), for tools built
//!   with [`task_support`](toolwire::ToolBuilder::task_support) `Optional` or `Required` and
//!   clients that declare the extension:
//!   - the call runs in the background; if it ends or asks for input within
//!     [`McpServer::task_grace`], the client gets that as for any call (a `Required` tool's
//!     result as a task already ended), and otherwise a `CreateTaskResult`, sent only once
//!     the task is in the server's [`task_store`](McpServer::task_store);
//!   - a call that waits for an approval (a policy's request) becomes a task at once,
//!     `input_required`: a human may take long, and may answer outside MCP (the host writes
//!     [`TaskRecord::host_answer`](toolwire::tasks::TaskRecord::host_answer), as `toolwire
//!     approvals answer` does), which resumes the call at the next `tasks/get`; a handler's
//!     own question within the grace period is an `InputRequiredResult`, as for any call;
//!   - `tasks/get` gives its status and, once it ended, its result (a tool's failure is a
//!     completed task with `isError`; a panic fails it with `-32603`); a question it asks
//!     is `input_required` with its `inputRequests`, answered with `tasks/update`, key by
//!     key, and the call resumes once every key has its answer, once;
//!   - `tasks/cancel` stops the handler, on whichever server sharing the store runs it;
//!   - a task belongs to the bearer token that started it: for any other client its id is
//!     unknown (`-32602`), as is a forged one;
//!   - the server running a task keeps a lease on it ([`McpServer::task_lease`]); when it
//!     stops, a server sharing its store takes the task over at the next `tasks/get`: it
//!     runs the call again if the tool is idempotent and no answer was spent on it, and
//!     otherwise fails the task saying whether the call took effect is unknown;
//!   - a `Required` tool called by a client without the extension is refused with `-32021`.
//! - A tool's handler reaches the session's client with [`peer`], to send requests of its
//!   own such as `sampling/createMessage`.
//! - Resources, prompts and completions come from an rmcp handler handed in with
//!   [`McpServer::with_extras`].
//!
//! ```no_run
//! # async fn run() -> std::io::Result<()> {
//! use serde_json::json;
//! use toolwire::{Registry, Tool, ToolResult};
//! use toolwire_mcp::server::McpServer;
//!
//! let echo = Tool::define("echo")
//!     .description("Echo the arguments back")
//!     .execute_sync(|args, _| ToolResult::ok(args, "echoed"))
//!     .build()
//!     .expect("a valid tool");
//! let registry = Registry::builder().register(echo).seal().expect("unique names");
//!
//! // Over stdio, for editors that start the server as a child process:
//! McpServer::new(registry.clone()).serve_stdio().await?;
//! // Or over streamable HTTP on 127.0.0.1:3000, at /mcp:
//! toolwire_mcp::server::serve_http(McpServer::new(registry), "127.0.0.1:3000").await?;
//! # Ok(()) }
//! ```

mod call;
mod catalog;
mod content;
mod elicit;
mod events;
mod extras;
mod handler;
#[cfg(feature = "server-http")]
mod http;
mod input;
mod limits;
mod mrtr;
mod parked;
mod request_state;
mod round;
mod session;
#[cfg(feature = "stdio")]
mod stdio;
mod task_peer;
mod tasks;
mod trace;

use std::sync::Arc;
use std::time::Duration;

use rmcp::model::Implementation;
use toolwire::tasks::TaskStore;
use toolwire::{CallOptions, Registry};

#[allow(deprecated)]
pub use content::{CONTENT_KEY, with_content};
pub use extras::{Extras, NoExtras};
#[cfg(feature = "server-http")]
pub use http::{DEFAULT_MAX_BODY_BYTES, HttpOptions, Users, UsersError, token_sha256};
#[cfg(feature = "server-http")]
pub use http::{router, serve_http, serve_http_with, serve_on};
pub use input::INPUT_REQUESTS_KIND;
pub use limits::CallLimits;
pub use parked::is_parked_call;
pub use request_state::DEFAULT_REQUEST_STATE_TTL;
pub use task_peer::peer;
pub use tasks::{DEFAULT_TASK_GRACE, DEFAULT_TASK_LEASE, DEFAULT_TASK_TTL};

/// How many tools one `tools/list` page holds, by default.
pub const DEFAULT_PAGE_SIZE: usize = 100;

/// A registry served over MCP, with optional extras for resources, prompts and completions.
///
/// It is cheap to clone; each MCP session gets its own copy with its own logging level and
/// call limits, made by [`McpServer::session`]. A setting changed on a clone (say
/// `server.clone().name(..)`) applies to that clone and to the sessions it makes; the
/// server it was cloned from keeps its own.
pub struct McpServer<H = NoExtras> {
    pub(crate) shared: Arc<Shared<H>>,
    pub(crate) session: Arc<session::Session>,
}

/// What every session of a server shares.
pub(crate) struct Shared<H> {
    pub(crate) registry: Registry,
    pub(crate) info: Implementation,
    pub(crate) instructions: Option<String>,
    pub(crate) page_size: usize,
    pub(crate) limits: limits::Limits,
    /// The options every call starts from: the call timeout and the application state.
    pub(crate) options: CallOptions,
    /// Which tools a session lists, for the application state; all active ones without it.
    pub(crate) active: Option<ActiveHook>,
    /// How long a 2026-07-28 `requestState` stays good.
    pub(crate) state_ttl: Duration,
    /// Where tasks are kept, and how long they run and live.
    pub(crate) tasks: tasks::Tasks,
    pub(crate) extras: Arc<H>,
    /// The search tool, when the registry defers tools (see `catalog`).
    pub(crate) search: Option<toolwire::Tool>,
}

impl<H> Clone for Shared<H> {
    fn clone(&self) -> Self {
        Self {
            registry: self.registry.clone(),
            info: self.info.clone(),
            instructions: self.instructions.clone(),
            page_size: self.page_size,
            limits: self.limits.clone(),
            options: self.options.clone(),
            active: self.active.clone(),
            state_ttl: self.state_ttl,
            tasks: self.tasks.clone(),
            extras: Arc::clone(&self.extras),
            search: self.search.clone(),
        }
    }
}

/// Whether a tool is active for the host's application state.
pub(crate) type ActiveHook = Arc<dyn Fn(&toolwire::Tool) -> bool + Send + Sync>;

impl McpServer<NoExtras> {
    /// Serves `registry`, naming the server after this crate.
    pub fn new(registry: Registry) -> Self {
        let info = Implementation::new("toolwire-mcp", env!("CARGO_PKG_VERSION"));
        let search = catalog::search_tool(&registry);
        let shared = Shared {
            registry,
            search,
            info,
            instructions: None,
            page_size: DEFAULT_PAGE_SIZE,
            limits: limits::Limits::new(CallLimits::default()),
            options: CallOptions::new(),
            active: None,
            state_ttl: DEFAULT_REQUEST_STATE_TTL,
            tasks: tasks::Tasks::new(),
            extras: Arc::new(NoExtras),
        };
        Self::from_shared(shared)
    }
}

impl<H: Extras> McpServer<H> {
    fn from_shared(shared: Shared<H>) -> Self {
        let session = Arc::new(session::Session::new(&shared.limits));
        Self { shared: Arc::new(shared), session }
    }

    /// Changes a setting of this server: in place when nothing else holds its settings, or
    /// else in a copy of them, so that clones and sessions made before keep theirs. The
    /// server gets a fresh session, made with the new call limits.
    fn map_shared(mut self, change: impl FnOnce(&mut Shared<H>)) -> Self {
        change(Arc::make_mut(&mut self.shared));
        self.session = Arc::new(session::Session::new(&self.shared.limits));
        self
    }

    /// The name and version the server gives in `initialize`.
    pub fn name(self, name: impl Into<String>, version: impl Into<String>) -> Self {
        let info = Implementation::new(name, version);
        self.map_shared(|shared| shared.info = info)
    }

    /// Instructions for the client's model, given in `initialize`.
    pub fn instructions(self, instructions: impl Into<String>) -> Self {
        let instructions = instructions.into();
        self.map_shared(|shared| shared.instructions = Some(instructions))
    }

    /// How many tools one `tools/list` page holds (at least one); default
    /// [`DEFAULT_PAGE_SIZE`]. Larger registries are listed with cursors.
    pub fn page_size(self, size: usize) -> Self {
        self.map_shared(|shared| shared.page_size = size.max(1))
    }

    /// A time budget for every call; without one, calls run until they finish or the client
    /// cancels them.
    pub fn call_timeout(self, timeout: Duration) -> Self {
        self.map_shared(|shared| shared.options = shared.options.clone().timeout(timeout))
    }

    /// The principal of calls whose transport proves none: over stdio, the local user who
    /// started the server. A named client of an HTTP server
    /// (`HttpOptions::users`, with the `server-http` feature) is its own principal
    /// instead.
    pub fn principal(self, principal: toolwire::Principal) -> Self {
        self.map_shared(|shared| shared.options = shared.options.clone().principal(principal))
    }

    /// How long a client on MCP 2026-07-28 has to answer a call that asked for input: the
    /// `requestState` of its `InputRequiredResult` lapses after this, and a retry with it is
    /// refused. By default [`DEFAULT_REQUEST_STATE_TTL`], ten minutes.
    pub fn request_state_ttl(self, ttl: Duration) -> Self {
        self.map_shared(|shared| shared.state_ttl = ttl)
    }

    /// Where the server keeps its tasks (see the tasks extension above); by default a
    /// [`MemoryTaskStore`](toolwire::tasks::MemoryTaskStore), which loses them when the
    /// process stops. Servers that share a store (a `toolwire-journal` journal) serve each
    /// other's tasks, and take over those of a server that stopped, if their registries also
    /// share an [`ApprovalKey`](toolwire::policy::ApprovalKey) (the journal's): a question
    /// one server asked is answered on another only under the key that issued it.
    pub fn task_store(self, store: Arc<dyn TaskStore>) -> Self {
        self.map_shared(|shared| shared.tasks.store = store)
    }

    /// Keeps each call that waits for input on MCP 2026-07-28 without a task (its client got
    /// an `InputRequiredResult`) in the [`task_store`](Self::task_store) as well, until its
    /// `requestState` lapses, so that the host can answer it outside MCP, as it answers a
    /// task's question: by writing the record's
    /// [`host_answer`](toolwire::tasks::TaskRecord::host_answer) (`toolwire approvals
    /// answer`, through a `toolwire-journal` journal). The client's retry with the state then
    /// runs with the host's answer, whatever its own responses say; the state is checked and
    /// spent first, as for any retry. The task methods do not show these records. Off by
    /// default: the records take room in the store, and only a store the host reads (a
    /// journal) makes them useful.
    pub fn host_answers(self, keep: bool) -> Self {
        self.map_shared(|shared| shared.tasks.host_answers = keep)
    }

    /// How long a call of a task-supporting tool may run within its request before it
    /// becomes a task; by default [`DEFAULT_TASK_GRACE`]. A call that ends sooner is
    /// answered as any call (a `Required` tool's, as a task already ended).
    pub fn task_grace(self, grace: Duration) -> Self {
        self.map_shared(|shared| shared.tasks.grace = grace)
    }

    /// How long a task is kept after it starts, by default [`DEFAULT_TASK_TTL`]: the
    /// `ttlMs` clients are told, after which `tasks/get` no longer finds it.
    pub fn task_ttl(self, ttl: Duration) -> Self {
        self.map_shared(|shared| shared.tasks.ttl = ttl.max(Duration::from_millis(1)))
    }

    /// How long this server's claim on a task it runs lasts unless renewed (it renews it
    /// every third of that); by default [`DEFAULT_TASK_LEASE`]. When a server stops, another
    /// sharing its [`task_store`](Self::task_store) takes its tasks over once their leases
    /// lapse.
    pub fn task_lease(self, lease: Duration) -> Self {
        self.map_shared(|shared| shared.tasks.lease = lease.max(Duration::from_millis(30)))
    }

    /// How many calls may run at once, per session and in total.
    pub fn call_limits(self, limits: CallLimits) -> Self {
        self.map_shared(|shared| shared.limits = limits::Limits::new(limits))
    }

    /// The application state every call gets, and which decides the tools each session lists
    /// (see [`ToolBuilder::active`](toolwire::ToolBuilder::active)).
    pub fn state<S: std::any::Any + Send + Sync>(self, state: Arc<S>) -> Self {
        let listed = Arc::clone(&state);
        let active: ActiveHook = Arc::new(move |tool| tool.is_active(&*listed));
        self.map_shared(|shared| {
            shared.options = shared.options.clone().state(state);
            shared.active = Some(active);
        })
    }

    /// Serves resources, prompts and completions from `extras`, an rmcp handler, next to the
    /// registry's tools; the capabilities it declares are merged with the server's.
    pub fn with_extras<E: Extras>(self, extras: E) -> McpServer<E> {
        let shared = &self.shared;
        McpServer::from_shared(Shared {
            registry: shared.registry.clone(),
            info: shared.info.clone(),
            instructions: shared.instructions.clone(),
            page_size: shared.page_size,
            limits: shared.limits.clone(),
            options: shared.options.clone(),
            active: shared.active.clone(),
            state_ttl: shared.state_ttl,
            tasks: shared.tasks.clone(),
            extras: Arc::new(extras),
            search: shared.search.clone(),
        })
    }

    /// A copy for a new session: the same registry and settings, a fresh logging level and
    /// per-session call limit.
    pub fn session(&self) -> Self {
        let session = Arc::new(session::Session::new(&self.shared.limits));
        Self { shared: Arc::clone(&self.shared), session }
    }

    /// A copy for one request of a server without sessions (stateless HTTP): like
    /// [`session`](Self::session), but a deferred catalog is not offered, since nothing a
    /// search finds would outlast the request.
    #[cfg(feature = "server-http")]
    pub(crate) fn one_request(&self) -> Self {
        let mut session = session::Session::new(&self.shared.limits);
        session.lasting = false;
        Self { shared: Arc::clone(&self.shared), session: Arc::new(session) }
    }

    /// How many `tools/call`s run now, across every session (each holds a place of the
    /// [`CallLimits`] until it ends): for a host that says what a stop interrupted.
    pub fn calls_running(&self) -> usize {
        self.shared.limits.total.taken()
    }

    /// The registry being served.
    pub fn registry(&self) -> &Registry {
        &self.shared.registry
    }
}

impl<H> Clone for McpServer<H> {
    fn clone(&self) -> Self {
        Self { shared: Arc::clone(&self.shared), session: Arc::clone(&self.session) }
    }
}

impl<H> std::fmt::Debug for McpServer<H> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("McpServer")
            .field("name", &self.shared.info.name)
            .field("tools", &self.shared.registry.len())
            .finish_non_exhaustive()
    }
}
