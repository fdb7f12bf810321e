//! A small MCP server of toolwire tools: over stdio by default, or over streamable HTTP with
//! `--http 127.0.0.1:PORT` (port 0 picks a free one; the address is printed on stderr).
//!
//! ```sh
//! cargo run -p toolwire-mcp --example demo_server                    # stdio
//! cargo run -p toolwire-mcp --example demo_server -- --http 127.0.0.1:3000
//! ```
//!
//! Its tools: `count` reports progress as it counts to `n`; `hang` never finishes, and
//! `hang_status` tells whether a `hang` call started and whether its future was dropped
//! (which cancelling it must do); `echo` returns its arguments.

use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::Duration;

use serde_json::{Value, json};
use toolwire::{Registry, Tool, ToolContext, ToolResult};
use toolwire_mcp::server::{HttpOptions, McpServer, serve_on};

/// Whether a `hang` call started, and whether its future was dropped.
#[derive(Default)]
struct Hang {
    started: AtomicBool,
    dropped: AtomicBool,
}

/// Marks the hang as dropped when the handler's future is dropped.
struct DropMark(Arc<Hang>);

impl Drop for DropMark {
    fn drop(&mut self) {
        self.0.dropped.store(true, Ordering::SeqCst);
    }
}

fn registry() -> Result<Registry, Box<dyn std::error::Error>> {
    let hang = Arc::new(Hang::default());
    let count = Tool::define("count")
        // Its result is structured: MCP clients get it as `structuredContent`.
        .output_schema(json!({"type": "object"}))
        .description("Count to n, reporting progress")
        .parameters(json!({
            "type": "object",
            "properties": {"n": {"type": "integer", "minimum": 1, "maximum": 100}},
            "required": ["n"]
        }))
        .execute(|args: Value, ctx: ToolContext| async move {
            let n = args["n"].as_u64().unwrap_or(1);
            for i in 1..=n {
                tokio::time::sleep(Duration::from_millis(10)).await;
                ctx.progress(i, n, "counting");
            }
            ToolResult::ok(json!({"counted": n}), format!("counted to {n}"))
        })
        .build()?;
    let hanging = Arc::clone(&hang);
    let hang_tool = Tool::define("hang")
        .description("Never finish, until cancelled")
        .execute(move |_, _| {
            let hang = Arc::clone(&hanging);
            async move {
                hang.started.store(true, Ordering::SeqCst);
                let _mark = DropMark(Arc::clone(&hang));
                std::future::pending::<ToolResult>().await
            }
        })
        .build()?;
    let status = Tool::define("hang_status")
        .output_schema(json!({"type": "object"}))
        .description("Whether a hang call started and was dropped")
        .read_only(true)
        .execute_sync(move |_, _| {
            let (started, dropped) =
                (hang.started.load(Ordering::SeqCst), hang.dropped.load(Ordering::SeqCst));
            ToolResult::ok(json!({"started": started, "dropped": dropped}), "status")
        })
        .build()?;
    let echo = Tool::define("echo")
        .output_schema(json!({"type": "object"}))
        .description("Return the arguments")
        .execute_sync(|args, _| ToolResult::ok(args, "echoed"))
        .build()?;
    Ok(Registry::builder().register_all([count, hang_tool, status, echo]).seal()?)
}

#[tokio::main]
async fn main() -> Result<(), Box<dyn std::error::Error>> {
    let server = McpServer::new(registry()?).name("toolwire-demo", env!("CARGO_PKG_VERSION"));
    let args: Vec<String> = std::env::args().skip(1).collect();
    match args.as_slice() {
        [] => server.serve_stdio().await?,
        [flag, addr] if flag == "--http" => {
            let listener = tokio::net::TcpListener::bind(addr.as_str()).await?;
            eprintln!("listening on http://{}/mcp", listener.local_addr()?);
            serve_on(listener, server, HttpOptions::default()).await?;
        }
        _ => return Err("usage: demo_server [--http HOST:PORT]".into()),
    }
    Ok(())
}
