//! The client side of a connection, as rmcp runs it: it introduces toolwire, routes progress,
//! re-lists the tools when the server says they changed, and answers elicitations.

use std::sync::Arc;

use rmcp::ClientHandler;
use rmcp::model::{
    ClientCapabilities, ClientConfig, ElicitRequestParams, ElicitResult, ElicitationAction,
    ElicitationCapability, ErrorData, FormElicitationCapability, Implementation,
    ProgressNotificationParam, ProtocolVersion,
};
use rmcp::service::{ClientLifecycleMode, NotificationContext, RequestContext, RoleClient};

use super::catalog::Catalog;
use super::elicit::ElicitationHandler;
use super::options::ClientOptions;
use super::progress::ProgressRoutes;

/// What rmcp calls back into for one connection.
#[derive(Debug)]
pub(crate) struct ClientSide {
    pub(crate) server: Arc<str>,
    pub(crate) info: ClientConfig,
    pub(crate) progress: Arc<ProgressRoutes>,
    pub(crate) catalog: Arc<Catalog>,
    pub(crate) elicitation: Option<ElicitationHandler>,
    /// Serializes re-listings, so that an older listing never overwrites a newer one.
    pub(crate) relisting: tokio::sync::Mutex<()>,
}

impl ClientSide {
    pub(crate) fn new(server: &str, options: &ClientOptions) -> Result<Self, String> {
        Ok(Self {
            server: server.into(),
            info: client_info(options)?,
            progress: Arc::default(),
            catalog: Arc::default(),
            elicitation: options.elicitation.clone(),
            relisting: tokio::sync::Mutex::new(()),
        })
    }
}

/// The client's parameters: name, version, capabilities, and the protocol version of an
/// `initialize` handshake (for a 2026-07-28 client, the one it falls back to).
fn client_info(options: &ClientOptions) -> Result<ClientConfig, String> {
    let version = protocol_version(options)?;
    let mut capabilities = ClientCapabilities::default();
    if options.elicitation.is_some() {
        let form = FormElicitationCapability::new();
        capabilities.elicitation = Some(ElicitationCapability::new().with_form(form));
    }
    let implementation = Implementation::new(&options.name, &options.version);
    let handshake =
        if version.has_initialize() { version } else { ProtocolVersion::LATEST_WITH_INITIALIZE };
    Ok(ClientConfig::new(capabilities, implementation).with_protocol_version(handshake))
}

/// How a session starts: a version from 2026-07-28 on is offered through `server/discover`,
/// and a server that does not know it gets `initialize` with 2025-11-25; an older version is
/// offered in `initialize` alone.
pub(crate) fn lifecycle(options: &ClientOptions) -> Result<ClientLifecycleMode, String> {
    let version = protocol_version(options)?;
    if version.has_initialize() {
        return Ok(ClientLifecycleMode::Initialize);
    }
    Ok(ClientLifecycleMode::Auto {
        preferred_versions: vec![version],
        legacy_version: Some(ProtocolVersion::LATEST_WITH_INITIALIZE),
    })
}

fn protocol_version(options: &ClientOptions) -> Result<ProtocolVersion, String> {
    serde_json::from_value(options.protocol_version.clone().into())
        .map_err(|e| format!("invalid protocol version {:?}: {e}", options.protocol_version))
}

/// Lists the server's tools again and records the listing; a server that does not offer
/// tools has none.
pub(crate) async fn relist(side: &ClientSide, peer: &rmcp::Peer<RoleClient>) -> Result<(), String> {
    let _one_at_a_time = side.relisting.lock().await;
    let has_tools = peer.peer_info().is_none_or(|info| info.capabilities.tools.is_some());
    if !has_tools {
        side.catalog.update(Vec::new());
        return Ok(());
    }
    let tools = peer.list_all_tools().await.map_err(|e| e.to_string())?;
    side.catalog.update(tools);
    Ok(())
}

impl ClientHandler for ClientSide {
    fn get_info(&self) -> ClientConfig {
        self.info.clone()
    }

    async fn on_progress(
        &self,
        params: ProgressNotificationParam,
        _context: NotificationContext<RoleClient>,
    ) {
        self.progress.deliver(params);
    }

    async fn on_tool_list_changed(&self, context: NotificationContext<RoleClient>) {
        if let Err(why) = relist(self, &context.peer).await {
            tracing::warn!(
                server = %self.server,
                "cannot list the tools of mcp server {:?} after a change: {why}",
                self.server
            );
        }
    }

    async fn create_elicitation(
        &self,
        request: ElicitRequestParams,
        _context: RequestContext<RoleClient>,
    ) -> Result<ElicitResult, ErrorData> {
        let (
            Some(handler),
            ElicitRequestParams::FormElicitationParams { message, requested_schema, .. },
        ) = (&self.elicitation, request)
        else {
            return Ok(ElicitResult::new(ElicitationAction::Decline));
        };
        Ok(handler.answer(&self.server, message, &requested_schema).await)
    }
}
