//! [`ConnectError`]: a server that could not be reached, started or listed.

use std::fmt;

/// What kind of failure a [`ConnectError`] reports. New kinds may be added.
#[non_exhaustive]
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum ConnectErrorKind {
    /// The server's configuration cannot be used (a bad header, protocol version or url).
    InvalidConfig,
    /// The child process could not be started.
    Spawn,
    /// The `initialize` handshake failed: the server is unreachable, closed the connection or
    /// refused the client.
    Handshake,
    /// The server's `tools/list` failed.
    ListTools,
    /// The server needs a login (OAuth) and none is stored for it, or the stored one was
    /// refused and could not be renewed.
    LoginRequired,
}

/// A server that could not be connected to; returned by
/// [`RemoteServer::connect`](super::RemoteServer::connect) and
/// [`RemoteServer::refresh`](super::RemoteServer::refresh).
///
/// Its message names the server and what failed, for example
/// `cannot start mcp server "files": command "mcp-files": No such file or directory (os error 2)`.
#[derive(Debug)]
pub struct ConnectError {
    kind: ConnectErrorKind,
    server: String,
    detail: String,
    source: Option<Box<dyn std::error::Error + Send + Sync>>,
}

impl ConnectError {
    pub(crate) fn new(kind: ConnectErrorKind, server: &str, detail: impl Into<String>) -> Self {
        Self { kind, server: server.to_owned(), detail: detail.into(), source: None }
    }

    pub(crate) fn with_source(
        mut self,
        source: impl std::error::Error + Send + Sync + 'static,
    ) -> Self {
        self.source = Some(Box::new(source));
        self
    }

    /// What kind of failure this is.
    pub fn kind(&self) -> ConnectErrorKind {
        self.kind
    }

    /// The name of the server.
    pub fn server(&self) -> &str {
        &self.server
    }
}

impl fmt::Display for ConnectError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let server = &self.server;
        let detail = &self.detail;
        match self.kind {
            ConnectErrorKind::InvalidConfig => {
                write!(f, "invalid configuration of mcp server {server:?}: {detail}")
            }
            ConnectErrorKind::Spawn => write!(f, "cannot start mcp server {server:?}: {detail}"),
            ConnectErrorKind::Handshake => {
                write!(f, "cannot initialize mcp server {server:?}: {detail}")
            }
            ConnectErrorKind::ListTools => {
                write!(f, "cannot list the tools of mcp server {server:?}: {detail}")
            }
            ConnectErrorKind::LoginRequired => {
                write!(f, "mcp server {server:?} needs a login: {detail}")
            }
        }
    }
}

impl std::error::Error for ConnectError {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        self.source.as_deref().map(|e| e as &(dyn std::error::Error + 'static))
    }
}
