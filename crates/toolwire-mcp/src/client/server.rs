//! [`McpServer`]: one live connection to an MCP server, whose tools can be imported.

use std::fmt;
use std::sync::{Arc, Mutex, PoisonError};

use rmcp::service::{RoleClient, RunningService, ServiceExt};
use rmcp::transport::IntoTransport;

use super::config::ServerConfig;
use super::error::{ConnectError, ConnectErrorKind};
use super::handler::{ClientSide, relist};
use super::import::Import;
use super::options::ClientOptions;
use super::pin::Drift;

/// A connection to one MCP server; cheap to clone.
///
/// Its tools become toolwire [`Tool`](toolwire::Tool)s with [`McpServer::import`]. The
/// connection stays open while the server, or any tool imported from it, is alive.
///
/// Each tool's definition is pinned by a hash the first time it is imported. When the server
/// announces that its tools changed, they are listed again, and a call to a tool whose
/// definition no longer matches its pin fails closed ([`FailureKind::Denied`]) with a message
/// naming the change, until the host looks at [`McpServer::changes`] and calls
/// [`McpServer::accept`].
///
/// [`FailureKind::Denied`]: toolwire::FailureKind::Denied
#[derive(Clone)]
pub struct McpServer {
    pub(crate) inner: Arc<Connection>,
}

/// What the imported tools share: the peer to call through, and the client side's state.
pub(crate) struct Connection {
    pub(crate) side: Arc<ClientSide>,
    pub(crate) peer: rmcp::Peer<RoleClient>,
    pub(crate) options: ClientOptions,
    running: Mutex<Option<RunningService<RoleClient, Arc<ClientSide>>>>,
}

impl McpServer {
    /// Starts or reaches the server `name` as `config` says, initializes the session and lists
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
        config: &ServerConfig,
        options: ClientOptions,
    ) -> Result<Self, ConnectError> {
        super::connect::open(name, config, options).await
    }

    /// Like [`McpServer::connect`], over a transport of your own: any rmcp client transport,
    /// for example one half of a `tokio::io::duplex`.
    ///
    /// # Errors
    ///
    /// As [`McpServer::connect`].
    pub async fn connect_transport<T, E, A>(
        name: &str,
        transport: T,
        options: ClientOptions,
    ) -> Result<Self, ConnectError>
    where
        T: IntoTransport<RoleClient, E, A>,
        E: std::error::Error + Send + Sync + 'static,
    {
        let side = ClientSide::new(name, &options)
            .map_err(|why| ConnectError::new(ConnectErrorKind::InvalidConfig, name, why))?;
        let side = Arc::new(side);
        let limit = options.connect_timeout;
        let started = tokio::time::timeout(limit, start(name, &side, transport)).await;
        let running = started.map_err(|_| {
            let detail = format!("no answer within {limit:?}; is it an mcp server?");
            ConnectError::new(ConnectErrorKind::Handshake, name, detail)
        })??;
        let peer = running.peer().clone();
        let running = Mutex::new(Some(running));
        Ok(Self { inner: Arc::new(Connection { side, peer, options, running }) })
    }

    /// The server's name, as configured.
    pub fn name(&self) -> &str {
        &self.inner.side.server
    }

    /// The tools the server lists, as toolwire tools named `server__tool` (made provider-safe),
    /// each pinned at its first import. Tools whose schemas toolwire cannot use are skipped,
    /// with a warning that names them.
    pub fn import(&self) -> Import {
        super::import::import(&self.inner)
    }

    /// The pinned tools whose definitions the server has changed since, or removed.
    pub fn changes(&self) -> Vec<Drift> {
        self.inner.side.catalog.changes()
    }

    /// Trusts the server's current definition of `tool` (its name on the server), so that
    /// calls to it pass again; returns whether it had changed. The imported tool keeps the
    /// schema it was built with: [`import`](McpServer::import) again to describe the new one
    /// to the model.
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
        let running = self.inner.running.lock().unwrap_or_else(PoisonError::into_inner).take();
        if let Some(mut running) = running {
            let _closed = running.close().await;
        }
    }
}

/// Runs the handshake and lists the tools for the first time.
async fn start<T, E, A>(
    name: &str,
    side: &Arc<ClientSide>,
    transport: T,
) -> Result<RunningService<RoleClient, Arc<ClientSide>>, ConnectError>
where
    T: IntoTransport<RoleClient, E, A>,
    E: std::error::Error + Send + Sync + 'static,
{
    let running = Arc::clone(side).serve(transport).await.map_err(|e| {
        ConnectError::new(ConnectErrorKind::Handshake, name, e.to_string()).with_source(e)
    })?;
    relist(side, running.peer())
        .await
        .map_err(|why| ConnectError::new(ConnectErrorKind::ListTools, name, why))?;
    Ok(running)
}

impl fmt::Debug for McpServer {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("McpServer").field("name", &self.name()).finish_non_exhaustive()
    }
}
