//! [`Annotations`]: hints about a tool's behaviour, as MCP publishes them.

use serde::{Deserialize, Serialize};

/// Hints about how a tool behaves, for clients and hosts to decide how to treat it: published
/// in the tool's MCP shape as `annotations`, and read by toolwire itself where it matters (a
/// journal re-runs only an [`idempotent`](crate::ToolBuilder::idempotent) tool whose outcome is
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
