//! [`RegistryBuilder`]: collects tools, then seals them into a [`Registry`].

use std::fmt;
use std::future::Future;
use std::sync::Arc;
use std::time::Duration;

use serde_json::Value;

use super::catalog;
use super::index::NameIndex;
use super::{Inner, Receipt, ReceiptHook, Registry};
use crate::context::ToolContext;
use crate::error::SealError;
use crate::policy::{
    ApprovalKey, ApprovalStore, Approvals, AsyncPolicy, DEFAULT_APPROVAL_TTL, MemoryApprovalStore,
    Policy, PolicyFn, Ruling, Spender, SyncPolicy,
};
use crate::schema::ArgumentLimits;
use crate::tool::Tool;

/// Collects tools and registry-wide settings; made by [`Registry::builder`].
#[must_use = "a builder does nothing until `seal` is called"]
#[derive(Default)]
pub struct RegistryBuilder {
    tools: Vec<Tool>,
    limits: Option<ArgumentLimits>,
    on_receipt: Option<ReceiptHook>,
    policy: Option<PolicyFn>,
    /// The [`Policy`] set with [`policy`](Self::policy), checked against the tools at seal.
    policy_check: Option<Arc<dyn Policy>>,
    approval_key: Option<ApprovalKey>,
    approval_store: Option<Spender>,
    approval_ttl: Option<Duration>,
    catalog: catalog::Settings,
}

/// The longest time to live an approval may be given: a year.
const MAX_APPROVAL_TTL: Duration = Duration::from_secs(366 * 24 * 60 * 60);

impl RegistryBuilder {
    /// Adds a tool. Names must be unique; [`seal`](Self::seal) checks.
    pub fn register(mut self, tool: Tool) -> Self {
        self.tools.push(tool);
        self
    }

    /// Adds several tools, in order.
    pub fn register_all(mut self, tools: impl IntoIterator<Item = Tool>) -> Self {
        self.tools.extend(tools);
        self
    }

    /// Size and depth limits for the arguments of every call through the registry, replacing
    /// each tool's own. Without this, each tool's limits apply (by default 64 levels and
    /// 1 MiB).
    pub fn limits(mut self, limits: ArgumentLimits) -> Self {
        self.limits = Some(limits);
        self
    }

    /// Calls `hook` with every receipt, when its invocation completes: a place for audit logs.
    /// It runs on the invoking task, so it should be quick; a panic in it is caught and
    /// logged.
    pub fn on_receipt(mut self, hook: impl Fn(&Receipt) + Send + Sync + 'static) -> Self {
        self.on_receipt = Some(Arc::new(hook));
        self
    }

    /// A check over every call through the registry, after the arguments are validated and
    /// parsed and before [`authorize`](crate::ToolBuilder::authorize): a type that implements
    /// [`Policy`], such as `toolwire-cedar`'s `CedarPolicy`. It returns a
    /// [`Ruling`](crate::policy::Ruling): [`Decision::Allow`](crate::policy::Decision::Allow),
    /// [`Deny`](crate::policy::Decision::Deny) or [`Ask`](crate::policy::Decision::Ask),
    /// which parks the call for a human, with the ids of the rules that decided, which the
    /// receipt records. See [`policy`](crate::policy) for how an approval is bound to its
    /// call. A panic in it fails the call.
    ///
    /// The seal calls its [`check`](Policy::check) with the registry's tools, and fails if
    /// the policy refuses them.
    pub fn policy(mut self, policy: impl Policy) -> Self {
        let policy = Arc::new(policy);
        let checked: Arc<dyn Policy> = Arc::clone(&policy) as Arc<dyn Policy>;
        let erased: Arc<SyncPolicy> =
            Arc::new(move |tool, args, ctx| policy.decide(tool, args, ctx));
        self.policy = Some(PolicyFn::Sync(erased));
        self.policy_check = Some(checked);
        self
    }

    /// An async [`policy`](Self::policy), as a closure: it receives its own copies of the
    /// tool, the arguments and the context, and is raced against the call's signal and
    /// deadline. It returns a [`Decision`](crate::policy::Decision) or a
    /// [`Ruling`](crate::policy::Ruling).
    pub fn policy_async<F, Fut, R>(mut self, policy: F) -> Self
    where
        F: Fn(Tool, Value, ToolContext) -> Fut + Send + Sync + 'static,
        Fut: Future<Output = R> + Send + 'static,
        R: Into<Ruling>,
    {
        let erased: Arc<AsyncPolicy> = Arc::new(move |tool, args, ctx| {
            let decided = policy(tool, args, ctx);
            Box::pin(async move { decided.await.into() })
        });
        self.policy = Some(PolicyFn::Async(erased));
        self.policy_check = None;
        self
    }

    /// A sync [`policy`](Self::policy), as a closure run at once on the caller's task. It
    /// returns a [`Decision`](crate::policy::Decision) or a [`Ruling`](crate::policy::Ruling).
    ///
    /// ```
    /// # #[tokio::main(flavor = "current_thread")] async fn main() -> Result<(), Box<dyn std::error::Error>> {
    /// use serde_json::json;
    /// use toolwire::policy::Decision;
    /// use toolwire::{FailureKind, Registry, Request, Tool, ToolResult};
    ///
    /// let rm = Tool::define("rm").execute_sync(|_, _| ToolResult::ok(json!({}), "removed")).build()?;
    /// let registry = Registry::builder()
    ///     .register(rm)
    ///     .policy_sync(|_tool, args, _ctx| match args["path"].as_str() {
    ///         Some("/") => Decision::Deny("never the root".into()),
    ///         Some(path) if path.starts_with("/etc") => {
    ///             Decision::Ask(Request::new("approval", format!("remove {path}?")))
    ///         }
    ///         _ => Decision::Allow,
    ///     })
    ///     .seal()?;
    /// let root = registry.invoke("rm", json!({"path": "/"})).await;
    /// assert_eq!(root.result.failure_kind(), Some(FailureKind::Denied));
    /// let etc = registry.invoke("rm", json!({"path": "/etc/hosts"})).await;
    /// assert_eq!(etc.result.failure_kind(), Some(FailureKind::Pending));
    /// # Ok(()) }
    /// ```
    pub fn policy_sync<F, R>(mut self, policy: F) -> Self
    where
        F: Fn(&Tool, &Value, &ToolContext) -> R + Send + Sync + 'static,
        R: Into<Ruling>,
    {
        let erased: Arc<SyncPolicy> =
            Arc::new(move |tool, args, ctx| policy(tool, args, ctx).into());
        self.policy = Some(PolicyFn::Sync(erased));
        self.policy_check = None;
        self
    }

    /// The key approval ids are made and checked with. Without it the registry makes a random
    /// one when sealed, so only this process can resume its approvals; processes that resume
    /// each other's calls must share one.
    pub fn approval_key(mut self, key: ApprovalKey) -> Self {
        self.approval_key = Some(key);
        self
    }

    /// Where spent approvals are kept, so that each one runs one call only (see
    /// [`ApprovalStore`]). Without it the registry keeps them in memory, in a
    /// [`MemoryApprovalStore`] of its own: single use then holds within this registry.
    /// Registries that share a key and resume each other's calls should share a store too,
    /// such as a journal, or the same approval could run once in each.
    pub fn approval_store(mut self, store: impl ApprovalStore) -> Self {
        self.approval_store = Some(Spender::Host(Arc::new(store)));
        self
    }

    /// [`approval_store`](Self::approval_store) with a store already behind an `Arc`, to
    /// share it with other registries.
    pub fn approval_store_shared(mut self, store: Arc<dyn ApprovalStore>) -> Self {
        self.approval_store = Some(Spender::Host(store));
        self
    }

    /// A [`MemoryApprovalStore`] shared with other registries of this process.
    pub fn memory_approval_store(mut self, store: Arc<MemoryApprovalStore>) -> Self {
        self.approval_store = Some(Spender::Memory(store));
        self
    }

    /// How long an approval stays good after it is asked for, and so how long a spent one
    /// must be remembered: [`DEFAULT_APPROVAL_TTL`] (one hour) unless set, at most a year.
    /// Each pending approval's [`Request::expires_at`](crate::Request::expires_at) says when
    /// it lapses; an answer after that is refused as `Denied`. The same applies to the
    /// requests a handler makes, unless the handler set its own `expires_at`.
    pub fn approval_ttl(mut self, ttl: Duration) -> Self {
        self.approval_ttl = Some(ttl.min(MAX_APPROVAL_TTL));
        self
    }

    /// Sets the tool called `name` to be deferred (`true`), left out of the tools a model is
    /// shown until a search of the run finds it, or loaded always (`false`), whatever the
    /// [`defer_threshold`](Self::defer_threshold). The last setting for a name wins. See
    /// [`Registry::is_deferred`] and the agent's tool search.
    pub fn defer_loading(mut self, name: impl Into<String>, defer: bool) -> Self {
        self.catalog.choices.push((name.into(), defer));
        self
    }

    /// Defers every tool not set by [`defer_loading`](Self::defer_loading) when the registry
    /// holds at least `threshold` tools; `None` defers only the tools set to wait. Unless
    /// set, [`DEFAULT_DEFER_THRESHOLD`](super::DEFAULT_DEFER_THRESHOLD) (100).
    pub fn defer_threshold(mut self, threshold: Option<usize>) -> Self {
        self.catalog.threshold = threshold;
        self
    }

    /// Seals the registry: from now on it cannot change.
    ///
    /// # Errors
    ///
    /// A [`SealError`] naming every tool name registered more than once, or every name given
    /// to [`defer_loading`](Self::defer_loading) that no registered tool has.
    pub fn seal(self) -> Result<Registry, SealError> {
        let mut index = NameIndex::default();
        index.reserve(self.tools.len());
        let mut counts: Vec<(String, usize)> = Vec::new();
        for (position, tool) in self.tools.iter().enumerate() {
            if index.insert(tool.shared_name(), position).is_some() {
                match counts.iter_mut().find(|(name, _)| name == tool.name()) {
                    Some((_, count)) => *count += 1,
                    None => counts.push((tool.name().to_owned(), 2)),
                }
            }
        }
        if !counts.is_empty() {
            return Err(SealError::duplicates(counts));
        }
        let deferred = self.catalog.resolve(&self.tools, &index).map_err(SealError::unknown)?;
        if let Some(policy) = &self.policy_check {
            policy.check(&self.tools).map_err(SealError::policy)?;
        }
        let inner = Inner {
            tools: self.tools,
            index,
            deferred,
            search: std::sync::OnceLock::new(),
            limits: self.limits,
            on_receipt: self.on_receipt,
            policy: self.policy,
            approvals: Arc::new(Approvals {
                key: self.approval_key.unwrap_or_else(ApprovalKey::random),
                store: self
                    .approval_store
                    .unwrap_or_else(|| Spender::Memory(Arc::new(MemoryApprovalStore::new()))),
                ttl: self.approval_ttl.unwrap_or(DEFAULT_APPROVAL_TTL),
            }),
        };
        Ok(Registry { inner: Arc::new(inner) })
    }
}

impl fmt::Debug for RegistryBuilder {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let names: Vec<&str> = self.tools.iter().map(Tool::name).collect();
        f.debug_struct("RegistryBuilder").field("tools", &names).finish_non_exhaustive()
    }
}
