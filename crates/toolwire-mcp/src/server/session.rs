//! What one MCP session keeps: its logging level and its call limit.

use std::sync::Arc;
use std::sync::atomic::{AtomicU8, Ordering};

use super::limits::{Limits, Places};

/// The state of one session.
#[derive(Debug)]
pub(crate) struct Session {
    /// The lowest severity sent as `notifications/message`, as a rank (0 = debug).
    level: AtomicU8,
    /// The per-session call limit.
    pub(crate) calls: Arc<Places>,
    /// The deferred tools the session's searches found.
    pub(crate) found: super::catalog::Found,
    /// Whether it outlives one request: not so for a service made per request (stateless
    /// HTTP), whose finds would be forgotten at once.
    pub(crate) lasting: bool,
}

/// The severities MCP names, lowest first; the rank of a level is its position.
pub(crate) const LEVELS: [&str; 8] =
    ["debug", "info", "notice", "warning", "error", "critical", "alert", "emergency"];

/// Until the client sets a level, messages from `info` up are sent.
const DEFAULT_LEVEL: u8 = 1;

impl Session {
    pub(crate) fn new(limits: &Limits) -> Self {
        Self {
            level: AtomicU8::new(DEFAULT_LEVEL),
            calls: Places::new(limits.config.per_session),
            found: super::catalog::Found::default(),
            lasting: true,
        }
    }

    /// Sets the lowest level sent.
    pub(crate) fn set_level(&self, rank: u8) {
        self.level.store(rank, Ordering::Relaxed);
    }

    /// Whether a message of `rank` passes the session's level.
    pub(crate) fn passes(&self, rank: u8) -> bool {
        rank >= self.level.load(Ordering::Relaxed)
    }
}

/// The rank of a level's name; an unknown name counts as `info`.
pub(crate) fn rank(name: &str) -> u8 {
    LEVELS.iter().position(|level| *level == name).map_or(DEFAULT_LEVEL, |i| i as u8)
}
