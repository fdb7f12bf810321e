//! [`Registry`]: a sealed set of tools, invoked by name, with a [`Receipt`] for every call.
//!
//! ```
//! # #[tokio::main(flavor = "current_thread")] async fn main() -> Result<(), Box<dyn std::error::Error>> {
//! use std::sync::Arc;
//! use serde_json::json;
//! use toolwire::{FailureKind, Provider, Registry, Tool, ToolResult};
//!
//! struct App { admin: bool }
//!
//! let delete = Tool::define("delete_file")
//!     .parameters(json!({"type": "object", "properties": {"path": {"type": "string"}}, "required": ["path"]}))
//!     .authorize_sync(|_args, ctx| match ctx.state::<App>() {
//!         Some(app) if app.admin => Ok(()),
//!         _ => Err("only admins may delete files"),
//!     })
//!     .execute_sync(|args, _| ToolResult::ok(json!({"deleted": args["path"]}), "deleted"))
//!     .build()?;
//! let registry = Registry::builder().register(delete).seal()?;
//! assert_eq!(registry.definitions(Provider::OpenAi, &()).len(), 1);
//!
//! let receipt = registry
//!     .invoke("delete_file", json!({"path": "/tmp/x"}))
//!     .call_id("call_1")
//!     .state(Arc::new(App { admin: false }))
//!     .await;
//! assert_eq!(receipt.result.failure_kind(), Some(FailureKind::Denied));
//! assert_eq!(receipt.call_id.as_deref(), Some("call_1"));
//! # Ok(()) }
//! ```
//!
//! # Application state: why a type-erased value and not `Registry<S>` / `ToolContext<S>`
//!
//! The state is one `Arc<dyn Any + Send + Sync>`, set per call with `.state(Arc::new(app))`
//! and read back, typed, with [`ToolContext::state::<S>()`](crate::ToolContext::state). The
//! alternative, a generic `S` on `Tool`, `ToolContext` and `Registry`, would check the type at
//! compile time, but:
//!
//! - tools written by different crates, each for its own state type or none, could not share
//!   one registry, and a tool library would have to be generic over every host's state;
//! - every handler signature, even of tools that never read state, would carry the parameter;
//! - the core types that users name most (`Tool`, `ToolContext`) would stop being plain types.
//!
//! The price is a check at run time, once per access: a `TypeId` comparison. A handler that
//! asks for a type the caller did not give gets `None`, and a tool whose
//! [`active`](crate::ToolBuilder::active) condition needs a state it did not get counts as
//! inactive, so a mismatch is a readable failure, never a panic.

mod builder;
mod catalog;
mod dispatch;
mod index;
mod invoke;
mod search;
mod search_tool;
mod suggest;

use std::any::Any;
use std::fmt;
use std::sync::Arc;

use serde_json::Value;

pub use crate::record::{Receipt, ToolCall};
pub use builder::RegistryBuilder;
pub use catalog::DEFAULT_DEFER_THRESHOLD;
pub use dispatch::{DEFAULT_CONCURRENCY, Dispatch, DispatchFuture};
pub use invoke::{DROPPED_CALL_TEXT, Invocation, InvokeFuture};
pub use search::{MAX_PATTERN, PatternError, SearchHit};
pub use search_tool::{SEARCH_TOOL, SearchAnswer, search_tool};

use crate::execute::Options;
use crate::policy::{ApprovalKey, Approvals, PolicyFn, SpendError, SpentApproval};
use crate::provider::Provider;
use crate::record::{FailureKind, ToolResult};
use crate::schema::ArgumentLimits;
use crate::tool::{Proposal, Tool};

/// A sealed, immutable set of tools. Cloning it is a reference-count bump, and looking a
/// tool up takes no lock and copies nothing.
#[derive(Clone)]
pub struct Registry {
    inner: Arc<Inner>,
}

/// A hook that sees every receipt, for audit logs.
pub(crate) type ReceiptHook = Arc<dyn Fn(&Receipt) + Send + Sync>;

struct Inner {
    tools: Vec<Tool>,
    index: index::NameIndex,
    /// Whether each tool, by position, is deferred (see [`catalog`]).
    deferred: Vec<bool>,
    /// The search index, built on the first [`Registry::search`].
    search: std::sync::OnceLock<search::Index>,
    limits: Option<ArgumentLimits>,
    on_receipt: Option<ReceiptHook>,
    policy: Option<PolicyFn>,
    approvals: Arc<Approvals>,
}

impl Registry {
    /// Starts collecting tools.
    pub fn builder() -> RegistryBuilder {
        RegistryBuilder::default()
    }

    /// The key this registry binds approvals and requests with, for a host that seals
    /// single-use state of its own with it (see [`ApprovalKey::sign`]). Hosts that share a
    /// key (set with [`RegistryBuilder::approval_key`]) accept each other's.
    pub fn approval_key(&self) -> &ApprovalKey {
        &self.inner.approvals.key
    }

    /// Records `approval` as used in this registry's approval store, the one the pipeline
    /// spends answers in: for a host whose own tokens must work once, such as an MCP
    /// server's `requestState`. The same id spent twice fails with
    /// [`SpendError::AlreadySpent`], across every registry that shares the store.
    ///
    /// # Cancel safety
    ///
    /// With a host's store, dropping the future may leave the spend recorded or not.
    pub fn spend_once(
        &self,
        approval: SpentApproval,
    ) -> impl std::future::Future<Output = Result<(), SpendError>> + Send + 'static {
        self.inner.approvals.store.spend(approval)
    }

    /// The tool called `name`, if there is one.
    pub fn get(&self, name: &str) -> Option<&Tool> {
        self.inner.index.get(name).map(|&i| &self.inner.tools[i])
    }

    /// Every tool, in registration order.
    pub fn tools(&self) -> &[Tool] {
        &self.inner.tools
    }

    /// The `k` tools that best match `query`, a request in words, best first: ranked by BM25
    /// over each tool's name (split into its words: `read_file`, `readFile` and
    /// `github__create_issue` read as `read file` and `github create issue`), title,
    /// description, and parameters' names and descriptions, a word in the name counting
    /// most. Only tools that share a word with the query are returned, so there may be fewer
    /// than `k`; ties keep registration order.
    ///
    /// The index is built on the first search and kept; a query's first 64 distinct words
    /// count, and each word's first 64 characters, so no query costs more than that.
    ///
    /// ```
    /// use toolwire::{Registry, Tool, ToolResult};
    /// let tool = |name: &str, description: &str| {
    ///     Tool::define(name)
    ///         .description(description)
    ///         .execute_sync(|_, _| ToolResult::ok(serde_json::Value::Null, ""))
    ///         .build()
    /// };
    /// let registry = Registry::builder()
    ///     .register(tool("write_file", "Write text to a file")?)
    ///     .register(tool("read_file", "Read a file's text")?)
    ///     .register(tool("send_email", "Send an email")?)
    ///     .seal()?;
    /// let hits = registry.search("read the file", 2);
    /// assert_eq!(hits[0].tool.name(), "read_file");
    /// assert_eq!(hits.len(), 2, "send_email shares no word with the query");
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn search(&self, query: &str, k: usize) -> Vec<SearchHit<'_>> {
        self.search_where(query, k, |_| true)
    }

    /// [`search`](Self::search) over the tools whose position `keep` accepts.
    fn search_where(
        &self,
        query: &str,
        k: usize,
        keep: impl Fn(usize) -> bool,
    ) -> Vec<SearchHit<'_>> {
        let index = self.inner.search.get_or_init(|| search::Index::new(&self.inner.tools));
        index
            .search(query, k, keep)
            .into_iter()
            .filter_map(|(position, score)| {
                self.inner.tools.get(position).map(|tool| SearchHit { tool, score })
            })
            .collect()
    }

    /// The `k` tools whose name, title, description, or parameters' names and descriptions
    /// match `pattern`, a regular expression (case-insensitive, in the syntax of the `regex`
    /// crate): those matched by name first, then by title, then the rest, each group in
    /// registration order.
    ///
    /// The pattern is the model's, so it is bounded: at most [`MAX_PATTERN`] bytes, with
    /// small limits on its compiled size and nesting, and matched in time linear in each
    /// text, so no pattern makes the search hang. It shares the index of
    /// [`search`](Self::search), built on the first search of either kind, which keeps each
    /// tool's text.
    ///
    /// # Errors
    ///
    /// [`PatternError`], saying why, for a pattern that is too long or does not compile.
    ///
    /// ```
    /// use toolwire::{Registry, Tool, ToolResult};
    /// let tool = |name: &str| {
    ///     Tool::define(name).execute_sync(|_, _| ToolResult::ok(serde_json::Value::Null, "")).build()
    /// };
    /// let registry = Registry::builder()
    ///     .register(tool("github__create_issue")?)
    ///     .register(tool("github__close_issue")?)
    ///     .register(tool("slack__post_message")?)
    ///     .seal()?;
    /// let hits = registry.search_regex("^github__.*issue", 5)?;
    /// assert_eq!(hits.len(), 2);
    /// assert!(registry.search_regex("(unclosed", 5).is_err());
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn search_regex(
        &self,
        pattern: &str,
        k: usize,
    ) -> Result<Vec<SearchHit<'_>>, PatternError> {
        let regex = search::compile(pattern)?;
        let index = self.inner.search.get_or_init(|| search::Index::new(&self.inner.tools));
        let mut hits: Vec<SearchHit<'_>> = self
            .inner
            .tools
            .iter()
            .zip(&index.texts)
            .filter_map(|(tool, text)| match search::rank(&regex, tool, text) {
                0 => None,
                rank => Some(SearchHit { tool, score: f32::from(rank) }),
            })
            .collect();
        // Stable: within a rank, registration order stays.
        hits.sort_by(|a, b| b.score.total_cmp(&a.score));
        hits.truncate(k);
        Ok(hits)
    }

    /// How many tools there are.
    pub fn len(&self) -> usize {
        self.inner.tools.len()
    }

    /// Whether there are no tools.
    pub fn is_empty(&self) -> bool {
        self.inner.tools.is_empty()
    }

    /// The `provider` shapes of the tools active for `state`, in registration order; pass
    /// `&()` when there is no application state. The shapes were computed when each tool was
    /// built, so this copies no schema.
    pub fn definitions<S: Any>(&self, provider: Provider, state: &S) -> Vec<&Value> {
        self.active(state).map(|tool| tool.definition(provider)).collect()
    }

    /// The tools marked [`as_intent`](crate::ToolBuilder::as_intent) that are active for
    /// `state`, in registration order.
    pub fn intents<S: Any>(&self, state: &S) -> Vec<&Tool> {
        self.active(state).filter(|tool| tool.is_intent()).collect()
    }

    fn active<'a, S: Any>(&'a self, state: &S) -> impl Iterator<Item = &'a Tool> {
        let state: &dyn Any = state;
        self.inner.tools.iter().filter(move |tool| tool.is_active_for(Some(state)))
    }

    /// Prepares a call of the tool called `name`; await it for its [`Receipt`].
    ///
    /// The call has the options of [`Tool::execute`] plus a call id. An unknown name is not
    /// an error: the receipt's result is a failure naming the closest known tools.
    pub fn invoke(&self, name: &str, input: Value) -> Invocation {
        Invocation::new(self, name, input)
    }

    /// Prepares the call a model made, as [`invoke`](Self::invoke) would with its name,
    /// arguments and call id. A call whose arguments could not be read (a
    /// [`ToolCall::malformed`] one, from a provider's parser) fails as
    /// [`InvalidInput`](FailureKind::InvalidInput), saying why, and runs nothing.
    ///
    /// ```
    /// # #[tokio::main(flavor = "current_thread")] async fn main() -> Result<(), Box<dyn std::error::Error>> {
    /// use serde_json::json;
    /// use toolwire::{FailureKind, Registry, Tool, ToolCall, ToolResult};
    ///
    /// let echo = Tool::define("echo").execute_sync(|args, _| ToolResult::ok(args, "ok")).build()?;
    /// let registry = Registry::builder().register(echo).seal()?;
    /// let receipt = registry.call(ToolCall::new("c1", "echo", json!({"x": 1}))).await;
    /// assert_eq!(receipt.call_id.as_deref(), Some("c1"));
    /// let broken = registry.call(ToolCall::malformed("c2", "echo", "expected `}` at 1:9")).await;
    /// assert_eq!(broken.result.failure_kind(), Some(FailureKind::InvalidInput));
    /// # Ok(()) }
    /// ```
    pub fn call(&self, call: ToolCall) -> Invocation {
        let ToolCall { call_id, tool, arguments, malformed } = call;
        let invocation = Invocation::new(self, &tool, arguments).call_id(call_id);
        match malformed {
            Some(why) => invocation.reject_arguments(&why),
            None => invocation,
        }
    }

    /// Prepares many calls, run concurrently; await it for their receipts, in call order.
    pub fn dispatch(&self, calls: impl IntoIterator<Item = ToolCall>) -> Dispatch {
        Dispatch::new(self.clone(), calls.into_iter().collect())
    }

    /// Checks `input` as a call of `name` would, against `state`, and converts it into a
    /// [`Proposal`] with the tool's [`resolve`](crate::ToolBuilder::resolve) hook, without
    /// executing anything.
    ///
    /// # Errors
    ///
    /// The failed result a call would have produced: an unknown or inactive tool, or
    /// invalid input.
    pub fn resolve<S: Any>(
        &self,
        name: &str,
        input: Value,
        state: &S,
    ) -> Result<Proposal, ToolResult> {
        let tool = match self.lookup(name) {
            Ok(tool) => tool,
            Err(failure) => {
                crate::schema::drop_iteratively(input);
                return Err(failure);
            }
        };
        crate::execute::resolve(tool, input, self.inner.limits, Some(state))
    }

    /// The tool called `name`, or the failure for an unknown name.
    pub(crate) fn lookup(&self, name: &str) -> Result<&Tool, ToolResult> {
        self.get(name).ok_or_else(|| {
            let known = self.inner.tools.iter().map(Tool::name);
            ToolResult::failed(FailureKind::UnknownTool, suggest::unknown_tool_text(name, known))
        })
    }

    /// The options every call through this registry starts with.
    pub(crate) fn options(&self) -> Options {
        Options {
            limits: self.inner.limits,
            policy: self.inner.policy.clone(),
            approvals: Some(Arc::clone(&self.inner.approvals)),
            ..Options::default()
        }
    }

    pub(crate) fn on_receipt(&self) -> Option<&ReceiptHook> {
        self.inner.on_receipt.as_ref()
    }
}

impl fmt::Debug for Registry {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let names: Vec<&str> = self.inner.tools.iter().map(Tool::name).collect();
        f.debug_struct("Registry")
            .field("tools", &names)
            .field("limits", &self.inner.limits)
            .finish_non_exhaustive()
    }
}

/// A compile-time check that a sealed registry can be shared across threads.
const _: fn() = || {
    fn shareable<T: Clone + Send + Sync + 'static>() {}
    shareable::<Registry>();
};
