//! Opening a transport for a [`ServerConfig`]: a child process over stdio, or streamable
//! HTTP.

use std::collections::HashMap;
use std::process::Stdio;

use http::{HeaderName, HeaderValue};
use rmcp::transport::streamable_http_client::StreamableHttpClientTransportConfig;
use rmcp::transport::{StreamableHttpClientTransport, TokioChildProcess};

use super::config::{HttpConfig, McpConfig, ServerConfig, StdioConfig};
use super::error::{ConnectError, ConnectErrorKind};
use super::options::ClientOptions;
use super::server::McpServer;

/// Headers that the transport sets itself and that a configuration may not override.
const RESERVED_HEADERS: [&str; 3] = ["accept", "mcp-session-id", "last-event-id"];

/// Checks that `name: value` can be sent as a custom HTTP header.
pub(crate) fn check_header(name: &str, value: &str) -> Result<(), String> {
    parse_header(name, value).map(drop)
}

fn parse_header(name: &str, value: &str) -> Result<(HeaderName, HeaderValue), String> {
    let header = HeaderName::try_from(name).map_err(|_| "not a valid header name".to_owned())?;
    if RESERVED_HEADERS.contains(&header.as_str()) {
        return Err("set by the transport itself; it cannot be configured".to_owned());
    }
    let value = HeaderValue::try_from(value)
        .map_err(|_| "not a valid header value (control characters?)".to_owned())?;
    Ok((header, value))
}

/// Connects to the server `name` as `config` describes.
pub(crate) async fn open(
    name: &str,
    config: &ServerConfig,
    options: ClientOptions,
) -> Result<McpServer, ConnectError> {
    match config {
        ServerConfig::Stdio(stdio) => {
            let transport = spawn(name, stdio)?;
            McpServer::connect_transport(name, transport, options).await
        }
        ServerConfig::Http(http) => {
            crate::install_tls_provider();
            let transport = StreamableHttpClientTransport::from_config(http_config(name, http)?);
            McpServer::connect_transport(name, transport, options).await
        }
    }
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

impl McpServer {
    /// Connects to every server of `config` at once. The results come in the config's (sorted)
    /// order; each error names its server, and one server failing does not stop the others.
    ///
    /// # Cancel safety
    ///
    /// Dropping the future drops the connections being made, which stops their children.
    pub async fn connect_all(
        config: &McpConfig,
        options: ClientOptions,
    ) -> Vec<Result<McpServer, ConnectError>> {
        let mut tasks = tokio::task::JoinSet::new();
        for (index, (name, server)) in config.servers().enumerate() {
            let (name, server, options) = (name.to_owned(), server.clone(), options.clone());
            tasks.spawn(async move { (index, open(&name, &server, options).await) });
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
}
