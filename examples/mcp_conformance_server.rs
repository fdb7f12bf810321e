//! The server the official MCP conformance suite tests: toolwire tools for every tool scenario,
//! and an rmcp handler, plugged in with `McpServer::with_extras`, for the resources, prompts and
//! completions the suite asks for.
//!
//! Run it with `cargo run --example mcp_conformance_server -- --addr 127.0.0.1:3001` (port 0
//! picks a free one; the address served is printed on stderr), then
//! point the suite at it: `npx @modelcontextprotocol/conformance server --url
//! http://localhost:3001/mcp --suite all` (see `CONFORMANCE.md` and `scripts/conformance.sh`).

#[path = "mcp_conformance_server/extras.rs"]
mod extras;
#[path = "mcp_conformance_server/media.rs"]
mod media;
#[path = "mcp_conformance_server/mrtr.rs"]
mod mrtr;
#[path = "mcp_conformance_server/tasks.rs"]
mod tasks;
#[path = "mcp_conformance_server/tools.rs"]
mod tools;

use tokio::net::TcpListener;
use toolwire::Registry;
use toolwire_mcp::server::{HttpOptions, McpServer, serve_on};

/// Where the server listens unless `--addr HOST:PORT` says otherwise.
const DEFAULT_ADDR: &str = "127.0.0.1:3000";

#[tokio::main]
async fn main() -> Result<(), Box<dyn std::error::Error>> {
    let addr = address(std::env::args().skip(1))?;
    let registry = Registry::builder()
        .register_all(tools::all()?)
        .register_all(mrtr::all()?)
        .register_all(tasks::all()?)
        .seal()?;
    let server = McpServer::new(registry)
        .name("toolwire-conformance-server", env!("CARGO_PKG_VERSION"))
        .with_extras(extras::Extras::default());
    // Bound here rather than by `serve_http`, so that `--addr 127.0.0.1:0` prints the port
    // the system picked (scripts/conformance.sh reads it).
    let listener = TcpListener::bind(addr.as_str()).await?;
    eprintln!("serving MCP at http://{}/mcp", listener.local_addr()?);
    serve_on(listener, server, HttpOptions::default()).await?;
    Ok(())
}

/// The address from `--addr HOST:PORT` (or `--addr=HOST:PORT`), or [`DEFAULT_ADDR`].
fn address(mut args: impl Iterator<Item = String>) -> Result<String, String> {
    let mut addr = DEFAULT_ADDR.to_owned();
    while let Some(arg) = args.next() {
        match arg.as_str() {
            "--addr" => addr = args.next().ok_or("--addr needs HOST:PORT")?,
            other => match other.strip_prefix("--addr=") {
                Some(value) => addr = value.to_owned(),
                None => return Err(format!("unknown argument {other:?}; usage: --addr HOST:PORT")),
            },
        }
    }
    Ok(addr)
}
