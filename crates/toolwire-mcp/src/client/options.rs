//! [`ClientOptions`]: how toolwire introduces itself to servers and bounds the calls.

use std::future::Future;
use std::time::Duration;

use super::elicit::{Elicitation, ElicitationHandler, ElicitationReply};
use crate::Revision;

/// The protocol version toolwire offers by default: MCP 2026-07-28, through `server/discover`,
/// with a fallback to an `initialize` handshake on 2025-11-25 for servers that do not know it.
pub const DEFAULT_PROTOCOL_VERSION: &str = Revision::LATEST.as_str();

/// How long a call may go without a reply or a progress notification, by default.
pub const DEFAULT_IDLE_TIMEOUT: Duration = Duration::from_secs(60);

/// How long a call may take in all, whatever progress it reports, by default.
pub const DEFAULT_MAX_DURATION: Duration = Duration::from_secs(600);

/// The largest tool result a call takes by default, in bytes of JSON: 16 MiB.
pub const DEFAULT_MAX_RESULT_BYTES: usize = 16 * 1024 * 1024;

/// What a message may hold beyond its result: the JSON-RPC envelope, `_meta`, and room to
/// spare.
const MESSAGE_ENVELOPE: usize = 64 * 1024;

/// How many requests to a server over HTTP may be in flight at once, by default: 256 (rmcp's
/// own default is 16, which caps a server of 100 ms tools near 160 calls a second). A request
/// past it waits for one to finish, in order.
pub const DEFAULT_MAX_IN_FLIGHT: usize = 256;

/// How long an idle HTTP connection to a server is kept for the next request, by default.
pub const DEFAULT_POOL_IDLE_TIMEOUT: Duration = Duration::from_secs(90);

/// How long connecting (the handshake and the first listing of tools) may take, by default.
pub const DEFAULT_CONNECT_TIMEOUT: Duration = Duration::from_secs(30);

/// Options for connecting to MCP servers and calling their tools.
///
/// ```
/// use std::time::Duration;
/// use toolwire_mcp::client::{ClientOptions, ElicitationReply};
///
/// let options = ClientOptions::new()
///     .client_info("my-agent", "1.2.0")
///     .idle_timeout(Duration::from_secs(30))
///     .max_duration(Duration::from_secs(300))
///     .on_elicitation(|request| async move { ElicitationReply::accept_defaults(&request.schema) });
/// assert_eq!(options.get_idle_timeout(), Duration::from_secs(30));
/// ```
#[derive(Debug, Clone)]
pub struct ClientOptions {
    pub(crate) name: String,
    pub(crate) version: String,
    pub(crate) protocol_version: String,
    pub(crate) idle_timeout: Duration,
    pub(crate) max_duration: Duration,
    pub(crate) connect_timeout: Duration,
    pub(crate) max_result_bytes: usize,
    pub(crate) max_in_flight: usize,
    pub(crate) pool_idle: usize,
    pub(crate) pool_idle_timeout: Duration,
    pub(crate) elicitation: Option<ElicitationHandler>,
    #[cfg(feature = "auth")]
    pub(crate) logins: Option<super::oauth::TokenStore>,
    #[cfg(feature = "auth")]
    pub(crate) authorizer: Option<AuthorizerSlot>,
}

/// The authorizer of [`ClientOptions::authorizer`], shown by `Debug` as present or not.
#[cfg(feature = "auth")]
#[derive(Clone)]
pub(crate) struct AuthorizerSlot(pub(crate) super::oauth::SharedAuthorizer);

#[cfg(feature = "auth")]
impl std::fmt::Debug for AuthorizerSlot {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("Authorizer")
    }
}

impl Default for ClientOptions {
    fn default() -> Self {
        Self {
            name: "toolwire".to_owned(),
            version: env!("CARGO_PKG_VERSION").to_owned(),
            protocol_version: DEFAULT_PROTOCOL_VERSION.to_owned(),
            idle_timeout: DEFAULT_IDLE_TIMEOUT,
            max_duration: DEFAULT_MAX_DURATION,
            connect_timeout: DEFAULT_CONNECT_TIMEOUT,
            max_result_bytes: DEFAULT_MAX_RESULT_BYTES,
            max_in_flight: DEFAULT_MAX_IN_FLIGHT,
            pool_idle: DEFAULT_MAX_IN_FLIGHT,
            pool_idle_timeout: DEFAULT_POOL_IDLE_TIMEOUT,
            elicitation: None,
            #[cfg(feature = "auth")]
            logins: None,
            #[cfg(feature = "auth")]
            authorizer: None,
        }
    }
}

impl ClientOptions {
    /// The defaults: named `toolwire`, protocol [`DEFAULT_PROTOCOL_VERSION`], timeouts
    /// [`DEFAULT_IDLE_TIMEOUT`], [`DEFAULT_MAX_DURATION`] and [`DEFAULT_CONNECT_TIMEOUT`], and
    /// no elicitation.
    pub fn new() -> Self {
        Self::default()
    }

    /// The client name and version sent in `initialize`.
    pub fn client_info(mut self, name: impl Into<String>, version: impl Into<String>) -> Self {
        self.name = name.into();
        self.version = version.into();
        self
    }

    /// The protocol version offered, such as `"2025-06-18"`. From `"2026-07-28"` on it is
    /// offered through `server/discover`, and a server that does not know it is met with
    /// `initialize` on 2025-11-25; an older version is offered in `initialize` alone.
    pub fn protocol_version(mut self, version: impl Into<String>) -> Self {
        self.protocol_version = version.into();
        self
    }

    /// How long a call may wait without a reply; each progress notification from the server
    /// starts the wait again. When it passes, the call fails as timed out and is cancelled
    /// (`notifications/cancelled`, or on 2026-07-28 its stream closed).
    pub fn idle_timeout(mut self, timeout: Duration) -> Self {
        self.idle_timeout = timeout;
        self
    }

    /// How long a call may take in all, however much progress it reports.
    pub fn max_duration(mut self, cap: Duration) -> Self {
        self.max_duration = cap;
        self
    }

    /// How long connecting may take: the `initialize` handshake and the first `tools/list`.
    /// A server that does not answer in time (a program that is not an MCP server, say) is a
    /// connect error, not a hang.
    pub fn connect_timeout(mut self, timeout: Duration) -> Self {
        self.connect_timeout = timeout;
        self
    }

    /// At most `requests` requests to an HTTP server in flight at once (at least 1); the
    /// others wait in order, each within its own deadline. Default: [`DEFAULT_MAX_IN_FLIGHT`].
    /// It also bounds the idle connections kept, unless [`http_pool`](Self::http_pool) says
    /// otherwise.
    pub fn max_in_flight(mut self, requests: usize) -> Self {
        self.max_in_flight = requests.max(1);
        self.pool_idle = self.max_in_flight;
        self
    }

    /// Keeps at most `idle` idle HTTP connections to a server (0 opens one per request), each
    /// for up to `timeout`. Default: as many as [`max_in_flight`](Self::max_in_flight), for
    /// [`DEFAULT_POOL_IDLE_TIMEOUT`].
    pub fn http_pool(mut self, idle: usize, timeout: Duration) -> Self {
        self.pool_idle = idle;
        self.pool_idle_timeout = timeout;
        self
    }

    /// The longest message the transport reads: the largest result, with room for the
    /// JSON-RPC envelope around it. Over stdio and over HTTP alike.
    pub(crate) fn max_message_bytes(&self) -> usize {
        self.max_result_bytes.saturating_add(MESSAGE_ENVELOPE)
    }

    /// The largest tool result a call takes, in bytes of its JSON ([`DEFAULT_MAX_RESULT_BYTES`]
    /// by default): a larger one fails the call, saying its size, and the model never reads
    /// it.
    pub fn max_result_bytes(mut self, bytes: usize) -> Self {
        self.max_result_bytes = bytes;
        self
    }

    /// Declares the elicitation capability, and answers the servers' elicitations with
    /// `handler`. Without one, the capability is not declared.
    pub fn on_elicitation<F, Fut>(mut self, handler: F) -> Self
    where
        F: Fn(Elicitation) -> Fut + Send + Sync + 'static,
        Fut: Future<Output = ElicitationReply> + Send + 'static,
    {
        self.elicitation = Some(ElicitationHandler::new(handler));
        self
    }

    /// Uses the logins kept in `store` for servers over HTTP: a server with a stored login,
    /// or with [OAuth settings](super::HttpConfig::oauth), gets its token with each
    /// request, refreshed before it expires. Without a login such a server's connection
    /// fails with [`ConnectErrorKind::LoginRequired`](super::ConnectErrorKind::LoginRequired),
    /// unless an [authorizer](Self::authorizer) logs in.
    #[cfg(feature = "auth")]
    pub fn logins(mut self, store: super::oauth::TokenStore) -> Self {
        self.logins = Some(store);
        self
    }

    /// Logs in with `authorizer` whenever a server asks for a login (a 401), or for more
    /// scopes (a 403 `insufficient_scope`), at most three times for one request, keeping the
    /// tokens in the [logins](Self::logins) store (in memory when there is none).
    #[cfg(feature = "auth")]
    pub fn authorizer(mut self, authorizer: impl super::oauth::Authorizer) -> Self {
        self.authorizer = Some(AuthorizerSlot(std::sync::Arc::new(authorizer)));
        self
    }

    /// The idle timeout of each call.
    pub fn get_idle_timeout(&self) -> Duration {
        self.idle_timeout
    }

    /// The cap on each call's duration.
    pub fn get_max_duration(&self) -> Duration {
        self.max_duration
    }
}
