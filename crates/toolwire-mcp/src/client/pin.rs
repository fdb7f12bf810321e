//! A remote tool's definition, pinned by a hash of its canonical JSON, and what changed
//! between two of them.

use std::fmt;

use serde_json::Value;
use sha2::{Digest, Sha256};

/// The parts of a definition that a change is reported by, in MCP's spelling.
const PARTS: [&str; 5] = ["title", "description", "inputSchema", "outputSchema", "annotations"];

/// One remote tool's definition as the server last listed it.
#[derive(Debug, Clone)]
pub(crate) struct Definition {
    /// The tool as listed, in MCP's shape.
    pub(crate) tool: rmcp::model::Tool,
    /// The canonical JSON of each of [`PARTS`].
    parts: [String; PARTS.len()],
    /// The SHA-256 of the parts, in hex.
    digest: String,
    /// Whether a call needs no SEP-2243 header beyond `Mcp-Method` and `Mcp-Name` (read only
    /// by the HTTP transport).
    #[cfg_attr(not(feature = "client-http"), allow(dead_code))]
    pub(crate) plain: bool,
}

impl Definition {
    pub(crate) fn new(tool: rmcp::model::Tool) -> Self {
        let json = serde_json::to_value(&tool).unwrap_or(Value::Null);
        let parts = PARTS.map(|part| canonical(json.get(part).unwrap_or(&Value::Null)));
        let mut hasher = Sha256::new();
        hasher.update(tool.name.as_bytes());
        for part in &parts {
            hasher.update([0]);
            hasher.update(part.as_bytes());
        }
        let digest = hasher.finalize().iter().map(|b| format!("{b:02x}")).collect();
        let plain = super::headers::plain_call(&tool.name, &tool.input_schema);
        Self { tool, parts, digest, plain }
    }

    /// The hex SHA-256 that pins this definition.
    pub(crate) fn digest(&self) -> &str {
        &self.digest
    }

    /// Each part's name and the first 16 hex digits of the SHA-256 of its canonical JSON, so
    /// a host that keeps them can name what changed.
    pub(crate) fn part_digests(&self) -> Vec<(&'static str, String)> {
        PARTS
            .iter()
            .zip(&self.parts)
            .map(|(part, json)| {
                let hash = Sha256::digest(json.as_bytes());
                (*part, hash.iter().take(8).map(|b| format!("{b:02x}")).collect())
            })
            .collect()
    }

    /// The parts that differ from `other`, in MCP's spelling.
    pub(crate) fn changes_from(&self, other: &Self) -> Vec<&'static str> {
        PARTS
            .iter()
            .zip(self.parts.iter().zip(&other.parts))
            .filter(|(_, (mine, theirs))| mine != theirs)
            .map(|(part, _)| *part)
            .collect()
    }
}

impl PartialEq for Definition {
    fn eq(&self, other: &Self) -> bool {
        self.digest == other.digest
    }
}

/// How a tool differs from the definition the host trusted.
#[non_exhaustive]
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Change {
    /// The server lists it with these parts changed (`"description"`, `"inputSchema"`,
    /// `"outputSchema"`, `"annotations"` or `"title"`).
    Modified(Vec<&'static str>),
    /// The server no longer lists it.
    Removed,
}

/// A tool whose definition changed since it was pinned; calls to it fail until the host
/// accepts the change with [`RemoteServer::accept`](super::RemoteServer::accept).
#[non_exhaustive]
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Drift {
    /// The tool's name on the server.
    pub tool: String,
    /// What changed.
    pub change: Change,
}

impl fmt::Display for Drift {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match &self.change {
            Change::Modified(parts) => {
                write!(f, "tool {:?} changed its {}", self.tool, parts.join(", "))
            }
            Change::Removed => write!(f, "tool {:?} was removed", self.tool),
        }
    }
}

/// `value` as JSON text with every object's keys sorted, so that equal values hash equal
/// whatever order the server wrote them in.
fn canonical(value: &Value) -> String {
    toolwire::policy::canonical_json(value)
}
