//! Connecting: a transport for a [`ServerSpec`] (a child process over stdio, or streamable
//! HTTP), the handshake over it and the first listing of tools, giving a [`Connection`].

use std::sync::Arc;

use rmcp::model::{ServerNotification, SubscriptionFilter};
use rmcp::service::{ClientLifecycleMode, ClientServiceExt, RoleClient, RunningService};
use rmcp::transport::IntoTransport;

use super::config::{HttpConfig, ServerSpec, StdioConfig};
use super::connection::Connection;
use super::error::{ConnectError, ConnectErrorKind};
use super::handler::{ClientSide, lifecycle, relist};
use super::options::ClientOptions;

/// Connects to the server `name` as `spec` describes.
///
/// # Cancel safety
///
/// Dropping the future drops the half-open connection, which stops a child process.
pub(crate) async fn open(
    name: &str,
    spec: &ServerSpec,
    options: ClientOptions,
) -> Result<Connection, ConnectError> {
    match spec {
        ServerSpec::Stdio(stdio) => open_stdio(name, stdio, options).await,
        ServerSpec::Http(http) => open_http(name, http, options).await,
    }
}

/// Starts the server as a child process and connects over its stdin and stdout.
async fn open_stdio(
    name: &str,
    config: &StdioConfig,
    options: ClientOptions,
) -> Result<Connection, ConnectError> {
    #[cfg(feature = "stdio")]
    return over(name, stdio::spawn(name, config, &options)?, options).await;
    #[cfg(not(feature = "stdio"))]
    return {
        let _unused = (config, options);
        Err(without(name, "stdio"))
    };
}

/// Connects over streamable HTTP.
async fn open_http(
    name: &str,
    config: &HttpConfig,
    options: ClientOptions,
) -> Result<Connection, ConnectError> {
    #[cfg(feature = "client-http")]
    return {
        crate::install_tls_provider();
        #[cfg(feature = "auth")]
        if login::applies(config, &options) {
            let (transport, client, headers, bearer) =
                login::transport(name, config, &options).await?;
            // Calls go direct with the login's token, unless the connection may log in
            // again (an authorizer), which only rmcp's transport does.
            let direct = options.authorizer.is_none();
            let mut connection = over(name, transport, options).await?;
            if direct {
                connection.direct = http::direct(&connection, client, config, headers)
                    .map(|direct| direct.with_bearer(bearer));
            }
            return Ok(connection);
        }
        let (transport, client, headers) = http::transport(name, config, &options)?;
        let mut connection = over(name, transport, options).await?;
        connection.direct = http::direct(&connection, client, config, headers);
        Ok(connection)
    };
    #[cfg(not(feature = "client-http"))]
    return {
        let _unused = (config, options);
        Err(without(name, "http"))
    };
}

/// The error for a server whose transport was left out of this build.
#[cfg(not(all(feature = "stdio", feature = "client-http")))]
fn without(name: &str, feature: &str) -> ConnectError {
    let detail = format!("toolwire-mcp was built without its {feature:?} feature");
    ConnectError::new(ConnectErrorKind::InvalidConfig, name, detail)
}

/// Runs the handshake over `transport` and lists the tools, within the connect timeout.
///
/// # Cancel safety
///
/// As [`open`].
pub(crate) async fn over<T, E, A>(
    name: &str,
    transport: T,
    options: ClientOptions,
) -> Result<Connection, ConnectError>
where
    T: IntoTransport<RoleClient, E, A>,
    E: std::error::Error + Send + Sync + 'static,
{
    let side = ClientSide::new(name, &options)
        .map_err(|why| ConnectError::new(ConnectErrorKind::InvalidConfig, name, why))?;
    let side = Arc::new(side);
    let mode = lifecycle(&options)
        .map_err(|why| ConnectError::new(ConnectErrorKind::InvalidConfig, name, why))?;
    let limit = options.connect_timeout;
    let started = tokio::time::timeout(limit, start(name, &side, transport, mode)).await;
    let running = started.map_err(|_| {
        let detail = format!("no answer within {limit:?}; is it an mcp server?");
        ConnectError::new(ConnectErrorKind::Handshake, name, detail)
    })??;
    Ok(Connection::new(side, running, options))
}

/// Runs the handshake and lists the tools for the first time.
async fn start<T, E, A>(
    name: &str,
    side: &Arc<ClientSide>,
    transport: T,
    mode: ClientLifecycleMode,
) -> Result<RunningService<RoleClient, Arc<ClientSide>>, ConnectError>
where
    T: IntoTransport<RoleClient, E, A>,
    E: std::error::Error + Send + Sync + 'static,
{
    let running = Arc::clone(side).serve_with_lifecycle(transport, mode).await.map_err(|e| {
        #[cfg(feature = "client-http")]
        if e.auth_challenge().is_some() {
            let detail = "the server answered 401 (OAuth); no login is stored for it, or the \
                          stored one was refused and could not be renewed";
            return ConnectError::new(ConnectErrorKind::LoginRequired, name, detail).with_source(e);
        }
        ConnectError::new(ConnectErrorKind::Handshake, name, e.to_string()).with_source(e)
    })?;
    relist(side, running.peer())
        .await
        .map_err(|why| ConnectError::new(ConnectErrorKind::ListTools, name, why))?;
    listen_for_changes(side, running.peer());
    Ok(running)
}

/// On MCP 2026-07-28 a server says its tools changed only on a `subscriptions/listen`
/// stream, not on a session: when it offers `tools.listChanged`, a task of the connection's
/// own keeps one open and lists the tools again on each change, which is what drift
/// detection needs. It ends with the connection.
fn listen_for_changes(side: &Arc<ClientSide>, peer: &rmcp::Peer<RoleClient>) {
    let Some(info) = peer.peer_info() else { return };
    let offered = info.capabilities.tools.as_ref().and_then(|tools| tools.list_changed);
    if info.protocol_version.has_initialize() || offered != Some(true) {
        return;
    }
    let side = Arc::downgrade(side);
    let peer = peer.clone();
    tokio::spawn(async move {
        let filter = SubscriptionFilter::builder().tools_list_changed().build();
        let mut subscription = match peer.listen(filter).await {
            Ok(subscription) => subscription,
            Err(error) => {
                tracing::warn!(
                    "cannot listen for tool changes; drift shows only on reconnect: {error}"
                );
                return;
            }
        };
        // A change made between the first listing and the stream's acknowledgment would
        // otherwise go unheard: list once more now that changes are heard.
        if let Some(side) = side.upgrade()
            && let Err(why) = relist(&side, &peer).await
        {
            tracing::warn!(server = %side.server, "cannot list the tools again: {why}");
        }
        while let Ok(Some(notification)) = subscription.next().await {
            if !matches!(notification, ServerNotification::ToolListChangedNotification(_)) {
                continue;
            }
            let Some(side) = side.upgrade() else { return };
            if let Err(why) = relist(&side, &peer).await {
                tracing::warn!(server = %side.server, "cannot list the tools again after a change: {why}");
            }
        }
    });
}

#[cfg(feature = "stdio")]
pub(crate) mod stdio {
    use super::super::child::ChildTransport;
    use super::{ClientOptions, ConnectError, ConnectErrorKind, StdioConfig};

    /// Starts the child process; its stderr goes to ours, so its logs stay visible.
    pub(super) fn spawn(
        name: &str,
        config: &StdioConfig,
        options: &ClientOptions,
    ) -> Result<ChildTransport, ConnectError> {
        let mut command = tokio::process::Command::new(&config.command);
        if config.clear_env {
            command.env_clear();
        }
        command.args(&config.args).envs(&config.env);
        if let Some(cwd) = &config.cwd {
            command.current_dir(cwd);
        }
        spawn_command(name, command, options)
    }

    /// Starts `command` as the child; its stderr goes to ours. A line it sends may be as
    /// long as the largest result `options` takes, with room for the JSON-RPC envelope.
    pub(crate) fn spawn_command(
        name: &str,
        command: tokio::process::Command,
        options: &ClientOptions,
    ) -> Result<ChildTransport, ConnectError> {
        let program = command.as_std().get_program().to_string_lossy().into_owned();
        ChildTransport::spawn(command, options.max_message_bytes()).map_err(|e| {
            let detail = format!("command {program:?}: {e}");
            ConnectError::new(ConnectErrorKind::Spawn, name, detail).with_source(e)
        })
    }
}

/// Connections to servers that need a login.
#[cfg(feature = "auth")]
mod login {
    use std::sync::Arc;

    use rmcp::transport::StreamableHttpClientTransport;

    use super::super::direct::Bearer;
    use super::super::oauth::{self, OAuthHttp, Relogin, TokenStore};
    use super::{ClientOptions, ConnectError, ConnectErrorKind, HttpConfig};

    /// Whether the connection logs in: the server has OAuth settings, a login is stored for
    /// it, or the options can log in.
    pub(super) fn applies(config: &HttpConfig, options: &ClientOptions) -> bool {
        config.oauth.is_some()
            || options.authorizer.is_some()
            || options
                .logins
                .as_ref()
                .is_some_and(|store| matches!(store.status(&config.url), Ok(Some(_))))
    }

    /// The streamable HTTP transport over [`OAuthHttp`], with the stored login loaded.
    pub(super) async fn transport(
        name: &str,
        config: &HttpConfig,
        options: &ClientOptions,
    ) -> Result<
        (StreamableHttpClientTransport<OAuthHttp>, reqwest::Client, http::HeaderMap, Bearer),
        ConnectError,
    > {
        let refused = |kind, e: oauth::OAuthError| ConnectError::new(kind, name, e.to_string());
        let store = options.logins.clone().unwrap_or_else(TokenStore::in_memory);
        let settings = config.oauth.clone().unwrap_or_default();
        let mut manager = oauth::manager(&config.url, &store)
            .await
            .map_err(|e| refused(ConnectErrorKind::InvalidConfig, e))?;
        // The stored login is kept; a server or authorization server that cannot be reached
        // now is not a reason to log in again (a login that cannot be read is).
        let stored = oauth::resume(&mut manager, &config.url, &settings, &store).await.map_err(
            |e| match e.kind() {
                oauth::OAuthErrorKind::Store => refused(ConnectErrorKind::LoginRequired, e),
                _ => refused(ConnectErrorKind::Handshake, e),
            },
        )?;
        // A login of another authorization server is not sent at all: the connection starts
        // from nothing (a new login, with an authorizer, replaces the stored one).
        if stored == oauth::Stored::Changed && options.authorizer.is_none() {
            manager = oauth::manager(&config.url, &TokenStore::in_memory())
                .await
                .map_err(|e| refused(ConnectErrorKind::InvalidConfig, e))?;
        }
        let authorizer = options.authorizer.as_ref().map(|slot| Arc::clone(&slot.0));
        let relogin = Arc::new(Relogin::new(config.url.clone(), settings, authorizer, store));
        let (transport, headers) = super::http::config(name, config, options)?;
        let pooled = super::super::http_client::pooled(options)
            .map_err(|why| ConnectError::new(ConnectErrorKind::InvalidConfig, name, why))?;
        let client = OAuthHttp::new(pooled.clone(), manager, relogin);
        let bearer = client.manager();
        Ok((StreamableHttpClientTransport::with_client(client, transport), pooled, headers, bearer))
    }
}

#[cfg(feature = "client-http")]
mod http {
    use std::collections::HashMap;

    use http::HeaderMap;
    use rmcp::transport::StreamableHttpClientTransport;
    use rmcp::transport::streamable_http_client::StreamableHttpClientTransportConfig;

    use super::super::connection::Connection;
    use super::super::direct::Direct;
    use super::super::headers::parse_header;
    use super::{ClientOptions, ConnectError, ConnectErrorKind, HttpConfig};

    /// The streamable HTTP transport, with the configured headers, and the pooled client and
    /// headers it was built with.
    pub(super) fn transport(
        name: &str,
        config: &HttpConfig,
        options: &ClientOptions,
    ) -> Result<
        (StreamableHttpClientTransport<reqwest::Client>, reqwest::Client, HeaderMap),
        ConnectError,
    > {
        let (transport, header_map) = self::config(name, config, options)?;
        let client = super::super::http_client::pooled(options)
            .map_err(|why| ConnectError::new(ConnectErrorKind::InvalidConfig, name, why))?;
        Ok((
            StreamableHttpClientTransport::with_client(client.clone(), transport),
            client,
            header_map,
        ))
    }

    /// The transport's configuration: the address, the configured headers, and the limits
    /// of `options`; and the headers as a map.
    pub(super) fn config(
        name: &str,
        config: &HttpConfig,
        options: &ClientOptions,
    ) -> Result<(StreamableHttpClientTransportConfig, HeaderMap), ConnectError> {
        let mut headers = HashMap::with_capacity(config.headers.len());
        for (header, value) in &config.headers {
            let (header, value) = parse_header(header, value).map_err(|why| {
                let detail = format!("header {header:?}: {why}");
                ConnectError::new(ConnectErrorKind::InvalidConfig, name, detail)
            })?;
            headers.insert(header, value);
        }
        let header_map = headers.iter().map(|(k, v)| (k.clone(), v.clone())).collect();
        let mut transport = StreamableHttpClientTransportConfig::with_uri(config.url.as_str())
            .custom_headers(headers);
        // A result is held to the same size over HTTP as over stdio.
        transport.max_json_response_size = options.max_message_bytes();
        transport.max_sse_event_size = options.max_message_bytes();
        transport = transport.max_concurrent_requests(options.max_in_flight);
        Ok((transport, header_map))
    }

    /// How `connection` sends its calls itself, if it settled on a stateless revision.
    pub(super) fn direct(
        connection: &Connection,
        client: reqwest::Client,
        config: &HttpConfig,
        headers: HeaderMap,
    ) -> Option<Direct> {
        let mut meta = super::super::meta::input_meta(connection)?;
        let info = connection.peer.peer_info()?;
        meta.set_protocol_version(info.protocol_version.clone());
        meta.set_client_info(connection.side.info.client_info.clone());
        let url = reqwest::Url::parse(config.url.as_str()).ok()?;
        Direct::new(client, url, headers, meta, &connection.options)
            .inspect_err(|why| tracing::debug!("calls go through rmcp: {why}"))
            .ok()
    }
}
