//! [`Annotations`]: hints about a tool's behaviour, as MCP publishes them.

use serde::{Deserialize, Serialize};

use crate::tool::ToolBuilder;

/// Hints about how a tool behaves, for clients and hosts to decide how to treat it: published
/// in the tool's MCP shape as `annotations`, and read by toolwire itself where it matters (a
/// journal re-runs only an [`idempotent`](ToolBuilder::idempotent) tool whose outcome is
/// unknown).
///
/// Each is `None` until set; MCP's defaults then apply: not read-only, destructive, not
/// idempotent, open world. Hints from a server you do not trust are only hints.
#[non_exhaustive]
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Annotations {
    /// A human-readable title for the tool.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub title: Option<String>,
    /// The tool does not change its environment.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub read_only_hint: Option<bool>,
    /// The tool may destroy or overwrite things (meaningful only when not read-only).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub destructive_hint: Option<bool>,
    /// Calling the tool again with the same arguments has no further effect.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub idempotent_hint: Option<bool>,
    /// The tool reaches entities outside a closed world, such as the web.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub open_world_hint: Option<bool>,
}

impl Annotations {
    /// Whether no hint is set.
    pub fn is_empty(&self) -> bool {
        *self == Self::default()
    }
}

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
