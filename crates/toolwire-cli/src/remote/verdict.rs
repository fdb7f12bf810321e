//! What became of each tool of a server: the verdicts the commands warn about and
//! `toolwire check` reports.

use std::fmt;

/// What became of one tool (or of a whole server).
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum Verdict {
    /// Imported under `name`.
    Imported { name: String },
    /// Imported and pinned now (`accept_new`).
    PinnedNew { name: String },
    /// Not pinned: left out until accepted.
    New { tool: String, name: String },
    /// Changed since it was pinned: refused, naming the parts.
    Changed { name: String, why: String },
    /// Left out by the manifest's allow or deny list.
    Filtered { tool: String },
    /// Left out by the import: toolwire cannot use its definition.
    Unusable { tool: String, reason: String },
    /// Pinned, but the server no longer lists it.
    Removed { tool: String },
    /// The server could not be reached: its pinned tools fail.
    Unreachable { error: String },
}

impl Verdict {
    /// Whether the commands warn about it (the rest is only noted by `check`).
    pub(crate) fn warns(&self) -> bool {
        !matches!(self, Self::Imported { .. } | Self::PinnedNew { .. } | Self::Filtered { .. })
    }
}

/// One server's verdict, as printed: `mcp server "NAME": ...`.
pub(crate) struct Shown<'a>(pub(crate) &'a str, pub(crate) &'a Verdict);

impl fmt::Display for Shown<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let server = self.0;
        match self.1 {
            Verdict::Imported { name } => write!(f, "mcp server {server:?}: imports {name}"),
            Verdict::PinnedNew { name } => {
                write!(f, "mcp server {server:?}: imports {name}, pinned now (accept_new)")
            }
            Verdict::New { tool, name } => write!(
                f,
                "mcp server {server:?}: new tool {tool:?} is not imported until `toolwire mcp \
                 accept {name}`"
            ),
            Verdict::Changed { why, .. } => f.write_str(why),
            Verdict::Filtered { tool } => {
                write!(f, "mcp server {server:?}: {tool:?} is left out by the allow or deny list")
            }
            Verdict::Unusable { tool, reason } => {
                write!(f, "mcp server {server:?}: skipped {tool:?}: {reason}")
            }
            Verdict::Removed { tool } => write!(
                f,
                "mcp server {server:?}: the pinned tool {tool:?} is no longer listed; `toolwire \
                 mcp accept {server}` drops it"
            ),
            Verdict::Unreachable { error } => {
                write!(f, "{error}; its pinned tools fail until it can be reached")
            }
        }
    }
}
