//! [`RemoteServer`]: one live connection to an MCP server, whose tools can be imported.

use std::fmt;
use std::sync::Arc;

use rmcp::service::RoleClient;
use rmcp::transport::IntoTransport;

use super::config::{McpConfig, ServerSpec};
use super::connect;
use super::connection::Connection;
use super::error::{ConnectError, ConnectErrorKind};
use super::handler::relist;
use super::import::{Import, ImportOptions};
use super::options::ClientOptions;
use super::pin::Drift;

/// A connection to one MCP server; cheap to clone.
///
/// Its tools become toolwire [`Tool`](toolwire::Tool)s with [`RemoteServer::import`]. The
/// connection stays open while the server, or any tool imported from it, is alive.
///
/// Each tool's definition is pinned by a hash the first time it is imported. When the server
/// announces that its tools changed, they are listed again, and a call to a tool whose
/// definition no longer matches its pin fails closed ([`FailureKind::Denied`]) with a message
/// naming the change, until the host looks at [`RemoteServer::changes`] and calls
/// [`RemoteServer::accept`].
///
/// [`FailureKind::Denied`]: toolwire::FailureKind::Denied
#[derive(Clone)]
pub struct RemoteServer {
    inner: Arc<Connection>,
}

impl RemoteServer {
    /// Starts or reaches the server `name` as `spec` says, initializes the session and lists
    /// its tools.
    ///
    /// # Errors
    ///
    /// A [`ConnectError`] naming the server when the child cannot be started, the handshake
    /// fails or the tools cannot be listed.
    ///
    /// # Cancel safety
    ///
    /// Dropping the future drops the half-open connection, which stops a child process.
    pub async fn connect(
        name: &str,
        spec: &ServerSpec,
        options: ClientOptions,
    ) -> Result<Self, ConnectError> {
        connect::open(name, spec, options).await.map(Self::from)
    }

    /// Like [`RemoteServer::connect`] for a server spoken to over stdio, started as
    /// `command` says: for a host that prepares the child itself, such as one that runs it
    /// in a sandbox. Its stdin and stdout are the connection's; its stderr goes to ours.
    ///
    /// # Errors
    ///
    /// As [`RemoteServer::connect`].
    ///
    /// # Cancel safety
    ///
    /// As [`RemoteServer::connect`].
    #[cfg(feature = "stdio")]
    pub async fn connect_command(
        name: &str,
        command: tokio::process::Command,
        options: ClientOptions,
    ) -> Result<Self, ConnectError> {
        let child = connect::stdio::spawn_command(name, command, &options)?;
        connect::over(name, child, options).await.map(Self::from)
    }

    /// Like [`RemoteServer::connect`], over a transport of your own: any rmcp client
    /// transport, for example one half of a `tokio::io::duplex`.
    ///
    /// # Errors
    ///
    /// As [`RemoteServer::connect`].
    ///
    /// # Cancel safety
    ///
    /// As [`RemoteServer::connect`].
    pub async fn connect_transport<T, E, A>(
        name: &str,
        transport: T,
        options: ClientOptions,
    ) -> Result<Self, ConnectError>
    where
        T: IntoTransport<RoleClient, E, A>,
        E: std::error::Error + Send + Sync + 'static,
    {
        connect::over(name, transport, options).await.map(Self::from)
    }

    /// Connects to every server of `config` at once. The results come in the config's (sorted)
    /// order; each error names its server, and one server failing does not stop the others.
    ///
    /// # Cancel safety
    ///
    /// Dropping the future drops the connections being made, which stops their children.
    pub async fn connect_all(
        config: &McpConfig,
        options: ClientOptions,
    ) -> Vec<Result<Self, ConnectError>> {
        let mut tasks = tokio::task::JoinSet::new();
        for (index, (name, spec)) in config.servers().enumerate() {
            let (name, spec, options) = (name.to_owned(), spec.clone(), options.clone());
            tasks.spawn(async move { (index, Self::connect(&name, &spec, options).await) });
        }
        let mut results: Vec<_> = config.servers().map(|_| None).collect();
        while let Some(joined) = tasks.join_next().await {
            if let Ok((index, result)) = joined
                && let Some(slot) = results.get_mut(index)
            {
                *slot = Some(result);
            }
        }
        let names = config.servers().map(|(name, _)| name);
        results
            .into_iter()
            .zip(names)
            .map(|(result, name)| {
                result.unwrap_or_else(|| {
                    let detail = "the connecting task panicked";
                    Err(ConnectError::new(ConnectErrorKind::Handshake, name, detail))
                })
            })
            .collect()
    }

    /// The server's name, as configured.
    pub fn name(&self) -> &str {
        self.inner.name()
    }

    /// The tools the server lists, as toolwire tools named `server__tool` (made provider-safe),
    /// each pinned at its first import. Tools whose schemas toolwire cannot use are skipped,
    /// with a warning that names them.
    pub fn import(&self) -> Import {
        self.import_with(&ImportOptions::new())
    }

    /// [`import`](Self::import), with the names, hints and approvals `options` give.
    pub fn import_with(&self, options: &ImportOptions) -> Import {
        super::import::import(&self.inner, options)
    }

    /// The pinned tools whose definitions the server has changed since, or removed.
    pub fn changes(&self) -> Vec<Drift> {
        self.inner.side.catalog.changes()
    }

    /// Trusts the server's current definition of `tool` (its name on the server), so that
    /// calls to it pass again; returns whether it had changed. The imported tool keeps the
    /// schema it was built with: [`import`](RemoteServer::import) again to describe the new
    /// one to the model.
    pub fn accept(&self, tool: &str) -> bool {
        self.inner.side.catalog.accept(tool)
    }

    /// The hex SHA-256 that pins `tool` (its name on the server), if it has been imported.
    /// A host can store it to notice a change across sessions.
    pub fn pinned_digest(&self, tool: &str) -> Option<String> {
        self.inner.side.catalog.digest(tool)
    }

    /// Lists the server's tools again now, as a `tools/list_changed` notification does.
    ///
    /// # Errors
    ///
    /// A [`ConnectErrorKind::ListTools`] error when the listing fails.
    ///
    /// # Cancel safety
    ///
    /// Dropping it part way keeps the catalog of the last refresh that finished.
    pub async fn refresh(&self) -> Result<(), ConnectError> {
        relist(&self.inner.side, &self.inner.peer)
            .await
            .map_err(|why| ConnectError::new(ConnectErrorKind::ListTools, self.name(), why))
    }

    /// Closes the session (a child process is stopped). Calls in flight fail; later calls
    /// fail at once.
    ///
    /// # Cancel safety
    ///
    /// Once started, the close completes in the background if this future is dropped.
    pub async fn close(&self) {
        self.inner.close().await;
    }
}

impl From<Connection> for RemoteServer {
    fn from(connection: Connection) -> Self {
        Self { inner: Arc::new(connection) }
    }
}

impl fmt::Debug for RemoteServer {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("RemoteServer").field("name", &self.name()).finish_non_exhaustive()
    }
}
