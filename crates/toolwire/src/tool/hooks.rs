//! Seed 003's executable-tool hooks: authorization, input and output parsing, activation,
//! proposals, debug steps and intents.
//!
//! They run in the pipeline's order: `active`, the schema, `parse_input`, `needs_approval`
//! (with the registry's policy), `authorize`, the handler, `parse_output`, `debug_steps`. Each is optional.

use std::any::Any;
use std::fmt::Display;
use std::future::Future;
use std::pin::Pin;
use std::sync::Arc;

use serde_json::Value;

use crate::context::ToolContext;
use crate::record::ToolResult;
use crate::tool::ToolBuilder;

/// A value a host hands back instead of executing: which tool, with which input. It is
/// `#[non_exhaustive]`: build one with [`new`](Self::new).
///
/// ```
/// use serde_json::json;
/// use toolwire::Proposal;
///
/// let proposal = Proposal::new("deploy", json!({"env": "staging"}));
/// assert_eq!(proposal.tool_id, "deploy");
/// ```
#[derive(Debug, Clone, PartialEq, serde::Serialize, serde::Deserialize)]
#[non_exhaustive]
pub struct Proposal {
    /// The tool's name.
    pub tool_id: String,
    /// The validated, parsed input.
    pub input: Value,
}

impl Proposal {
    /// A proposal to run `tool_id` with `input`.
    pub fn new(tool_id: impl Into<String>, input: Value) -> Self {
        Self { tool_id: tool_id.into(), input }
    }
}

/// The outcome of an authorization check: `Err` carries the reason for a denial.
pub(crate) type Verdict = Result<(), String>;
/// A sync authorization check.
pub(crate) type SyncCheck = dyn Fn(&Value, &ToolContext) -> Verdict + Send + Sync;
/// An async authorization check, given its own copies of the arguments and context.
pub(crate) type AsyncCheck =
    dyn Fn(Value, ToolContext) -> Pin<Box<dyn Future<Output = Verdict> + Send>> + Send + Sync;
type Transform<T> = Arc<dyn Fn(T) -> Result<T, String> + Send + Sync>;
type Condition = dyn Fn(Option<&dyn Any>) -> bool + Send + Sync;
type Resolver = dyn Fn(Value) -> Result<Proposal, String> + Send + Sync;
type DebugHook = dyn Fn(&ToolResult, &ToolContext) + Send + Sync;
/// Whether a call with these arguments needs a human's approval first.
pub(crate) type ApprovalRule = dyn Fn(&Value) -> bool + Send + Sync;

/// An authorization check, with its generics erased.
#[derive(Clone)]
pub(crate) enum Authorizer {
    Sync(Arc<SyncCheck>),
    Async(Arc<AsyncCheck>),
}

/// Every hook a tool may have.
#[derive(Clone, Default)]
pub(crate) struct Hooks {
    pub(crate) authorize: Option<Authorizer>,
    pub(crate) approval: Option<Arc<ApprovalRule>>,
    pub(crate) parse_input: Option<Transform<Value>>,
    pub(crate) parse_output: Option<Transform<ToolResult>>,
    pub(crate) active: Option<Arc<Condition>>,
    pub(crate) resolve: Option<Arc<Resolver>>,
    pub(crate) debug_steps: Option<Arc<DebugHook>>,
    pub(crate) kind: Option<String>,
    pub(crate) server: Option<Arc<str>>,
    pub(crate) as_intent: bool,
    pub(crate) skip_validation: bool,
}

impl ToolBuilder {
    /// The host's permission check, async, for checks that wait on I/O. It runs after the
    /// arguments are validated and parsed and after the policy step, before the handler, and
    /// receives its own copy of the arguments and of the context (with the application
    /// state). `Err(reason)` denies the call: the result is a
    /// [`FailureKind::Denied`](crate::FailureKind::Denied) failure carrying the reason, and the
    /// handler never runs. It is raced against the call's signal and deadline like the
    /// handler. A panic in the check fails the call with
    /// [`FailureKind::Panic`](crate::FailureKind::Panic), and the handler does not run either.
    ///
    /// Like [`execute`](Self::execute) and [`execute_sync`](Self::execute_sync), the plain name
    /// takes an async function and [`authorize_sync`](Self::authorize_sync) a sync one.
    pub fn authorize<F, Fut, E>(self, check: F) -> Self
    where
        F: Fn(Value, ToolContext) -> Fut + Send + Sync + 'static,
        Fut: Future<Output = Result<(), E>> + Send + 'static,
        E: Display,
    {
        let check =
            move |args: Value, ctx: ToolContext| -> Pin<Box<dyn Future<Output = Verdict> + Send>> {
                let verdict = check(args, ctx);
                Box::pin(async move { verdict.await.map_err(|e| e.to_string()) })
            };
        self.with_hooks(|hooks| hooks.authorize = Some(Authorizer::Async(Arc::new(check))))
    }

    /// A sync [`authorize`](Self::authorize): it sees the arguments and the context by
    /// reference and runs at once, on the caller's task.
    pub fn authorize_sync<F, E>(self, check: F) -> Self
    where
        F: Fn(&Value, &ToolContext) -> Result<(), E> + Send + Sync + 'static,
        E: Display,
    {
        let check =
            move |args: &Value, ctx: &ToolContext| check(args, ctx).map_err(|e| e.to_string());
        self.with_hooks(|hooks| hooks.authorize = Some(Authorizer::Sync(Arc::new(check))))
    }

    /// Asks a human before every call of this tool (`true`), or never (`false`, the default):
    /// the call is parked with a pending result whose [`Request`](crate::Request) has kind
    /// `"approval"` and carries the tool's name and arguments in its `data`. The call goes on
    /// when it is run again with an [`Answer`](crate::Answer) accepting that request, for the
    /// same arguments and call id; see [`policy`](crate::policy). It is the tool's own policy,
    /// combined with the registry's.
    pub fn needs_approval(self, needs: bool) -> Self {
        let rule: Option<Arc<ApprovalRule>> = needs.then(|| Arc::new(|_: &Value| true) as _);
        self.with_hooks(|hooks| hooks.approval = rule)
    }

    /// Asks a human first for the calls whose arguments satisfy `rule`, as
    /// [`needs_approval`](Self::needs_approval) does for all. A panic in the rule fails the
    /// call with [`FailureKind::Panic`](crate::FailureKind::Panic).
    pub fn needs_approval_if<F>(self, rule: F) -> Self
    where
        F: Fn(&Value) -> bool + Send + Sync + 'static,
    {
        self.with_hooks(|hooks| hooks.approval = Some(Arc::new(rule)))
    }

    /// A custom input parser (the seed's `parseInput`): it runs after schema validation, or
    /// instead of it with [`validate_arguments(false)`](Self::validate_arguments), and may
    /// rewrite the arguments. `Err` rejects them as
    /// [`FailureKind::InvalidInput`](crate::FailureKind::InvalidInput).
    pub fn parse_input<F, E>(self, parse: F) -> Self
    where
        F: Fn(Value) -> Result<Value, E> + Send + Sync + 'static,
        E: Display,
    {
        let parse = move |args: Value| parse(args).map_err(|e| e.to_string());
        self.with_hooks(|hooks| hooks.parse_input = Some(Arc::new(parse)))
    }

    /// Checks or transforms a successful result before it is returned, for example one replayed
    /// from a cache. `Err` turns it into a
    /// [`FailureKind::InvalidOutput`](crate::FailureKind::InvalidOutput) failure. Failed and
    /// pending results are passed through untouched.
    pub fn parse_output<F, E>(self, parse: F) -> Self
    where
        F: Fn(ToolResult) -> Result<ToolResult, E> + Send + Sync + 'static,
        E: Display,
    {
        let parse = move |result: ToolResult| parse(result).map_err(|e| e.to_string());
        self.with_hooks(|hooks| hooks.parse_output = Some(Arc::new(parse)))
    }

    /// Makes the tool active only when `condition` holds for the caller's application state
    /// of type `S`. An inactive tool is left out of
    /// [`Registry::definitions`](crate::Registry::definitions), and a call to it fails with
    /// [`FailureKind::Inactive`](crate::FailureKind::Inactive). Without a state of type `S`
    /// (or `Arc<S>`), the tool is inactive. A condition that panics makes the tool inactive in
    /// listings and a call to it a [`FailureKind::Panic`](crate::FailureKind::Panic) failure.
    pub fn active<S, F>(self, condition: F) -> Self
    where
        S: Any,
        F: Fn(&S) -> bool + Send + Sync + 'static,
    {
        // The state may arrive as `S` or, from `&Arc<S>` in a listing, as `Arc<S>`.
        let condition = move |state: Option<&dyn Any>| {
            let state = state.and_then(|state| {
                state.downcast_ref::<S>().or_else(|| state.downcast_ref::<Arc<S>>().map(|s| &**s))
            });
            state.is_some_and(&condition)
        };
        self.with_hooks(|hooks| hooks.active = Some(Arc::new(condition)))
    }

    /// Declares a grouping, such as `"read"` or `"write"`, for listings and docs. It grants
    /// nothing: authorization stays with [`authorize`](Self::authorize).
    pub fn kind(self, kind: impl Into<String>) -> Self {
        let kind = kind.into();
        self.with_hooks(|hooks| hooks.kind = Some(kind))
    }

    /// Names the server the tool comes from, such as the MCP server whose tool this one
    /// calls: a policy reads it from [`Tool::server`](crate::Tool::server) to give every tool
    /// of one server the same rule. `toolwire-mcp`'s import sets it to the server's name.
    pub fn server(self, server: impl Into<Arc<str>>) -> Self {
        let server = server.into();
        self.with_hooks(|hooks| hooks.server = Some(server))
    }

    /// Converts validated arguments into the [`Proposal`] handed back by
    /// [`Tool::resolve`](crate::Tool::resolve), for hosts that return a choice instead of
    /// executing. Without it, the proposal is the tool's name and the parsed arguments.
    pub fn resolve<F, E>(self, resolve: F) -> Self
    where
        F: Fn(Value) -> Result<Proposal, E> + Send + Sync + 'static,
        E: Display,
    {
        let resolve = move |args: Value| resolve(args).map_err(|e| e.to_string());
        self.with_hooks(|hooks| hooks.resolve = Some(Arc::new(resolve)))
    }

    /// Runs on the result of every call whose arguments were admitted (authorized or not),
    /// inside a child `tracing` span of the invocation (`toolwire.debug_steps`), so the events
    /// it records are grouped under the call: the seed's sub-flow logger. It only observes: a
    /// panic in it is logged and changes nothing.
    pub fn debug_steps<F>(self, hook: F) -> Self
    where
        F: Fn(&ToolResult, &ToolContext) + Send + Sync + 'static,
    {
        self.with_hooks(|hooks| hooks.debug_steps = Some(Arc::new(hook)))
    }

    /// Lists the tool in [`Registry::intents`](crate::Registry::intents), for hosts that route
    /// by intent.
    pub fn as_intent(self) -> Self {
        self.with_hooks(|hooks| hooks.as_intent = true)
    }

    /// Turns schema validation of the arguments on (the default) or off, for tools that
    /// validate themselves, for example in [`parse_input`](Self::parse_input). The size and
    /// depth limits still apply.
    pub fn validate_arguments(self, validate: bool) -> Self {
        self.with_hooks(|hooks| hooks.skip_validation = !validate)
    }
}
