//! `toolwire serve`: the manifest's tools over MCP.

use std::path::Path;

use toolwire_mcp::server::{HttpOptions, McpServer, serve_http_with};

use crate::build;
use crate::cli::ServeArgs;
use crate::exit::{CliError, Exit};
use crate::manifest::Manifest;

/// Serves until the client leaves (stdio) or the process is stopped (HTTP).
///
/// # Errors
///
/// A bad manifest, a token variable that is not set, or the I/O error that ended serving.
pub(crate) async fn run(manifest: &Path, args: ServeArgs) -> Result<Exit, CliError> {
    let registry = build::registry(Manifest::load(manifest)?)?;
    let server = McpServer::new(registry).name("toolwire", env!("CARGO_PKG_VERSION"));
    let Some(addr) = args.http else {
        server
            .serve_stdio()
            .await
            .map_err(|error| CliError::usage(format!("serving on stdio failed: {error}")))?;
        return Ok(Exit::Success);
    };
    let mut options = HttpOptions::default();
    if let Some(name) = &args.token_env {
        let token = std::env::var(name).map_err(|_| {
            CliError::usage(format!("the environment variable {name} for --token-env is not set"))
        })?;
        options = options.bearer_token(token);
    }
    eprintln!("serving MCP at http://{addr}{}", options.path);
    serve_http_with(server, addr.as_str(), options)
        .await
        .map_err(|error| CliError::usage(format!("serving HTTP on {addr} failed: {error}")))?;
    Ok(Exit::Success)
}
