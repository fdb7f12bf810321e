//! The MCP revisions toolwire speaks, named once, with what each allows.

use std::fmt;
use std::str::FromStr;

/// A revision of the Model Context Protocol, as `protocolVersion` names it. Revisions are
/// dates, and compare as dates: a later one allows what an earlier one did, and more.
///
/// ```
/// use toolwire_mcp::Revision;
///
/// let revision: Revision = "2025-11-25".parse().unwrap();
/// assert!(revision.reads_priming() && !revision.is_stateless());
/// assert!(Revision::V2026_07_28.is_stateless());
/// assert_eq!(Revision::LATEST.as_str(), "2026-07-28");
/// assert!("2025-13-01".parse::<Revision>().is_err());
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
#[non_exhaustive]
pub enum Revision {
    /// 2024-11-05: the first, with HTTP+SSE.
    V2024_11_05,
    /// 2025-03-26: streamable HTTP.
    V2025_03_26,
    /// 2025-06-18: the `MCP-Protocol-Version` header, structured content, elicitation.
    V2025_06_18,
    /// 2025-11-25: resumable event streams (the priming event), URL elicitation, tasks.
    V2025_11_25,
    /// 2026-07-28: stateless, with `server/discover` and `InputRequiredResult`.
    V2026_07_28,
}

impl Revision {
    /// Every revision, oldest first.
    pub const ALL: [Revision; 5] = [
        Revision::V2024_11_05,
        Revision::V2025_03_26,
        Revision::V2025_06_18,
        Revision::V2025_11_25,
        Revision::V2026_07_28,
    ];

    /// The latest revision, which toolwire offers by default.
    pub const LATEST: Revision = Revision::V2026_07_28;

    /// Its date, as `protocolVersion` and `MCP-Protocol-Version` write it.
    pub const fn as_str(self) -> &'static str {
        match self {
            Revision::V2024_11_05 => "2024-11-05",
            Revision::V2025_03_26 => "2025-03-26",
            Revision::V2025_06_18 => "2025-06-18",
            Revision::V2025_11_25 => "2025-11-25",
            Revision::V2026_07_28 => "2026-07-28",
        }
    }

    /// Whether requests are stateless (no `initialize`, capabilities with each request, an
    /// `InputRequiredResult` rather than a server's own request): from 2026-07-28 on.
    pub fn is_stateless(self) -> bool {
        self >= Revision::V2026_07_28
    }

    /// Whether a client reads an event stream's priming event (an id, no data): from
    /// 2025-11-25 on. An earlier client parses every event's data as JSON-RPC.
    pub fn reads_priming(self) -> bool {
        self >= Revision::V2025_11_25
    }

    /// The revision a client's word names, when toolwire knows it: a date newer than every
    /// revision it knows is not one.
    pub fn of(text: &str) -> Option<Revision> {
        text.parse().ok()
    }
}

impl fmt::Display for Revision {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// A text that names no revision toolwire knows.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct UnknownRevision(String);

impl fmt::Display for UnknownRevision {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let known: Vec<&str> =
            Revision::ALL.iter().rev().map(|revision| revision.as_str()).collect();
        write!(f, "unknown MCP revision {:?}: one of {}", self.0, known.join(", "))
    }
}

impl std::error::Error for UnknownRevision {}

impl FromStr for Revision {
    type Err = UnknownRevision;

    fn from_str(text: &str) -> Result<Self, Self::Err> {
        Revision::ALL
            .into_iter()
            .find(|revision| revision.as_str() == text)
            .ok_or_else(|| UnknownRevision(text.to_owned()))
    }
}
