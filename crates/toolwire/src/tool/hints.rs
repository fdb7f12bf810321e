//! The builder's hints: [`ToolBuilder`]'s setters of the tool's [`Annotations`].

use super::annotations::Annotations;
use super::builder::ToolBuilder;

impl ToolBuilder {
    /// A human-readable title, published as MCP's `title` and `annotations.title`.
    pub fn title(self, title: impl Into<String>) -> Self {
        let title = title.into();
        self.with_annotations(|a| a.title = Some(title))
    }

    /// Declares that the tool does not change its environment (MCP's `readOnlyHint`).
    pub fn read_only(self, read_only: bool) -> Self {
        self.with_annotations(|a| a.read_only_hint = Some(read_only))
    }

    /// Declares whether the tool may destroy or overwrite things (MCP's `destructiveHint`).
    pub fn destructive(self, destructive: bool) -> Self {
        self.with_annotations(|a| a.destructive_hint = Some(destructive))
    }

    /// Declares that calling the tool again with the same arguments has no further effect
    /// (MCP's `idempotentHint`). A journal re-runs such a tool when a crash left its outcome
    /// unknown, instead of asking the host.
    pub fn idempotent(self, idempotent: bool) -> Self {
        self.with_annotations(|a| a.idempotent_hint = Some(idempotent))
    }

    /// Declares whether the tool reaches an open world, such as the web (MCP's
    /// `openWorldHint`).
    pub fn open_world(self, open_world: bool) -> Self {
        self.with_annotations(|a| a.open_world_hint = Some(open_world))
    }

    /// Sets every hint at once, replacing those set before.
    pub fn annotations(self, annotations: Annotations) -> Self {
        self.with_annotations(|a| *a = annotations)
    }
}
