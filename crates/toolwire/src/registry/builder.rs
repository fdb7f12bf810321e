//! [`RegistryBuilder`]: collects tools, then seals them into a [`Registry`].

use std::fmt;
use std::sync::Arc;

use super::index::NameIndex;
use super::{Inner, Receipt, ReceiptHook, Registry};
use crate::error::SealError;
use crate::schema::ArgumentLimits;
use crate::tool::Tool;

/// Collects tools and registry-wide settings; made by [`Registry::builder`].
#[must_use = "a builder does nothing until `seal` is called"]
#[derive(Default)]
pub struct RegistryBuilder {
    tools: Vec<Tool>,
    limits: Option<ArgumentLimits>,
    on_receipt: Option<ReceiptHook>,
}

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

    /// Seals the registry: from now on it cannot change.
    ///
    /// # Errors
    ///
    /// A [`SealError`] naming every tool name registered more than once.
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
        let inner =
            Inner { tools: self.tools, index, limits: self.limits, on_receipt: self.on_receipt };
        Ok(Registry { inner: Arc::new(inner) })
    }
}

impl fmt::Debug for RegistryBuilder {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let names: Vec<&str> = self.tools.iter().map(Tool::name).collect();
        f.debug_struct("RegistryBuilder").field("tools", &names).finish_non_exhaustive()
    }
}
