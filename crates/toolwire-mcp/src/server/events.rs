//! A call's events as MCP notifications: progress as `notifications/progress`, everything
//! else as `notifications/message`.

#![expect(deprecated, reason = "MCP logging is deprecated by SEP-2577 but still specified")]

use rmcp::model::ProgressToken;
use rmcp::model::{LoggingLevel, LoggingMessageNotificationParam, ProgressNotificationParam};
use rmcp::{Peer, RoleServer};
use serde_json::Value;

use super::session::{LEVELS, Session, rank};

/// Where one call's events go.
pub(crate) struct Forwarder<'a> {
    /// The client, reached through rmcp's service; `None` for a call answered without it,
    /// which sends no events.
    pub(crate) peer: Option<&'a Peer<RoleServer>>,
    pub(crate) session: &'a Session,
    pub(crate) progress_token: Option<ProgressToken>,
    pub(crate) logger: &'a str,
    /// The lowest level sent, when the request sets it rather than the session: on MCP
    /// 2026-07-28 it comes from the request's `_meta` (`io.modelcontextprotocol/logLevel`),
    /// and a request without one gets no messages.
    pub(crate) floor: Option<u8>,
}

impl<'a> Forwarder<'a> {
    /// Whether any event of the call could be sent. On 2026-07-28 a request without a
    /// progress token and without a log level gets none, so its handler is told that nobody
    /// listens ([`ToolContext::has_event_listener`](toolwire::ToolContext::has_event_listener)).
    /// A session's level may change during a call, so a session's calls always listen.
    pub(crate) fn listens(&self) -> bool {
        self.peer.is_some() && (self.progress_token.is_some() || self.floor != Some(u8::MAX))
    }

    /// The forwarder of a call that no client hears: it sends nothing.
    #[cfg(feature = "server-http")]
    pub(crate) fn none(session: &'a Session, logger: &'a str) -> Self {
        Self { peer: None, session, progress_token: None, logger, floor: Some(u8::MAX) }
    }

    /// Sends `event`: a `{"type": "progress", ..}` event as progress when the request asked
    /// for it, any other as a log message that passes the session's level. A failed send is
    /// logged and dropped: the call goes on.
    pub(crate) async fn forward(&self, event: Value) {
        if event.get("type").and_then(Value::as_str) == Some("progress") {
            return self.progress(&event).await;
        }
        self.log(event).await;
    }

    async fn progress(&self, event: &Value) {
        let (Some(peer), Some(token)) = (self.peer, self.progress_token.clone()) else { return };
        let done = event.get("progress").and_then(Value::as_f64).unwrap_or(0.0);
        let mut param = ProgressNotificationParam::new(token, done);
        if let Some(total) = event.get("total").and_then(Value::as_f64) {
            param = param.with_total(total);
        }
        if let Some(message) = event.get("message").and_then(Value::as_str) {
            param = param.with_message(message);
        }
        if let Err(error) = peer.notify_progress(param).await {
            tracing::debug!(%error, "a progress notification could not be sent");
        }
    }

    /// `{"level"?, "logger"?, "data"?}` or any other value, sent as a log message.
    async fn log(&self, mut event: Value) {
        let Some(peer) = self.peer else { return };
        let level = event.get("level").and_then(Value::as_str).map_or(1, rank);
        let passes = self.floor.map_or_else(|| self.session.passes(level), |floor| level >= floor);
        if !passes {
            return;
        }
        let logger = event.get("logger").and_then(Value::as_str).unwrap_or(self.logger).to_owned();
        let data = match event.get_mut("data") {
            Some(data) => data.take(),
            None => event,
        };
        let param = LoggingMessageNotificationParam::new(level_of(level), data).with_logger(logger);
        if let Err(error) = peer.notify_logging_message(param).await {
            tracing::debug!(%error, "a log notification could not be sent");
        }
    }
}

/// The rmcp level of a rank.
fn level_of(rank: u8) -> LoggingLevel {
    match LEVELS.get(usize::from(rank)).copied() {
        Some("debug") => LoggingLevel::Debug,
        Some("notice") => LoggingLevel::Notice,
        Some("warning") => LoggingLevel::Warning,
        Some("error") => LoggingLevel::Error,
        Some("critical") => LoggingLevel::Critical,
        Some("alert") => LoggingLevel::Alert,
        Some("emergency") => LoggingLevel::Emergency,
        _ => LoggingLevel::Info,
    }
}

/// The rank of an rmcp level.
/// The floor of a 2026-07-28 request: its `_meta` level, or above every level.
pub(crate) fn floor_of(level: Option<LoggingLevel>) -> u8 {
    level.map_or(u8::MAX, rank_of)
}

pub(crate) fn rank_of(level: LoggingLevel) -> u8 {
    let name = match level {
        LoggingLevel::Debug => "debug",
        LoggingLevel::Info => "info",
        LoggingLevel::Notice => "notice",
        LoggingLevel::Warning => "warning",
        LoggingLevel::Error => "error",
        LoggingLevel::Critical => "critical",
        LoggingLevel::Alert => "alert",
        LoggingLevel::Emergency => "emergency",
    };
    rank(name)
}
