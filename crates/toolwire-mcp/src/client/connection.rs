//! [`Connection`]: what a live session with one MCP server holds, shared by the
//! [`RemoteServer`](super::RemoteServer) and every tool imported from it.

use std::sync::{Arc, Mutex, PoisonError};

use rmcp::service::{RoleClient, RunningService};

use super::handler::ClientSide;
use super::input::Rounds;
use super::options::ClientOptions;

/// One live session: the peer to call through, the client side's state, and the running
/// service that owns the transport (a child process, an HTTP session).
pub(crate) struct Connection {
    pub(crate) side: Arc<ClientSide>,
    pub(crate) peer: rmcp::Peer<RoleClient>,
    pub(crate) options: ClientOptions,
    /// The calls waiting for the host's answer to a 2026-07-28 server's question.
    pub(crate) rounds: Rounds,
    /// How a 2026-07-28 connection over HTTP sends its calls without rmcp's hops.
    #[cfg(feature = "client-http")]
    pub(crate) direct: Option<super::direct::Direct>,
    running: Mutex<Option<RunningService<RoleClient, Arc<ClientSide>>>>,
}

impl Connection {
    /// The connection of a session that completed its handshake.
    pub(crate) fn new(
        side: Arc<ClientSide>,
        running: RunningService<RoleClient, Arc<ClientSide>>,
        options: ClientOptions,
    ) -> Self {
        let peer = running.peer().clone();
        Self {
            side,
            peer,
            options,
            rounds: Rounds::default(),
            #[cfg(feature = "client-http")]
            direct: None,
            running: Mutex::new(Some(running)),
        }
    }

    /// The server's name, as configured.
    pub(crate) fn name(&self) -> &str {
        &self.side.server
    }

    /// Closes the session (a child process is stopped); later calls fail at once.
    ///
    /// # Cancel safety
    ///
    /// Once started, the close completes in the background if this future is dropped.
    pub(crate) async fn close(&self) {
        let running = self.running.lock().unwrap_or_else(PoisonError::into_inner).take();
        if let Some(mut running) = running {
            let _closed = running.close().await;
        }
    }
}
