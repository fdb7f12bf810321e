//! Connecting: a transport for a [`ServerSpec`] (a child process over stdio, or streamable
//! HTTP), the handshake over it and the first listing of tools, giving a [`Connection`].

use std::collections::HashMap;
use std::process::Stdio;
use std::sync::Arc;

use rmcp::service::{RoleClient, RunningService, ServiceExt};
use rmcp::transport::streamable_http_client::StreamableHttpClientTransportConfig;
use rmcp::transport::{IntoTransport, StreamableHttpClientTransport, TokioChildProcess};

use super::config::{HttpConfig, ServerSpec, StdioConfig};
use super::connection::Connection;
use super::error::{ConnectError, ConnectErrorKind};
use super::handler::{ClientSide, relist};
use super::headers::parse_header;
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
        ServerSpec::Stdio(stdio) => {
            let transport = spawn(name, stdio)?;
            over(name, transport, options).await
        }
        ServerSpec::Http(http) => {
            crate::install_tls_provider();
            let transport = StreamableHttpClientTransport::from_config(http_config(name, http)?);
            over(name, transport, options).await
        }
    }
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
    let limit = options.connect_timeout;
    let started = tokio::time::timeout(limit, start(name, &side, transport)).await;
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

/// Starts the child process; its stderr goes to ours, so its logs stay visible.
fn spawn(name: &str, config: &StdioConfig) -> Result<TokioChildProcess, ConnectError> {
    let mut command = tokio::process::Command::new(&config.command);
    command.args(&config.args).envs(&config.env);
    if let Some(cwd) = &config.cwd {
        command.current_dir(cwd);
    }
    let (child, _stderr) =
        TokioChildProcess::builder(command).stderr(Stdio::inherit()).spawn().map_err(|e| {
            let detail = format!("command {:?}: {e}", config.command);
            ConnectError::new(ConnectErrorKind::Spawn, name, detail).with_source(e)
        })?;
    Ok(child)
}

/// The streamable HTTP transport's configuration, with the configured headers.
fn http_config(
    name: &str,
    config: &HttpConfig,
) -> Result<StreamableHttpClientTransportConfig, ConnectError> {
    let mut headers = HashMap::with_capacity(config.headers.len());
    for (header, value) in &config.headers {
        let (header, value) = parse_header(header, value).map_err(|why| {
            let detail = format!("header {header:?}: {why}");
            ConnectError::new(ConnectErrorKind::InvalidConfig, name, detail)
        })?;
        headers.insert(header, value);
    }
    Ok(StreamableHttpClientTransportConfig::with_uri(config.url.as_str()).custom_headers(headers))
}
