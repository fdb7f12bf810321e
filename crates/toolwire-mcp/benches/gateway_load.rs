//! A gateway in front of an MCP server: `tools/call` of a fixed-text tool on a bare rmcp
//! server, sent directly and through toolwire, with the upstream reached by `url` (streamable
//! HTTP) and by `command` (stdio), on both revisions, at concurrency 1 and 64.
//!
//! Run with `cargo bench -p toolwire-mcp --bench gateway_load`. The gateways:
//!
//! - **toolwire-mcp** in this process: `RemoteServer::connect` (or `connect_command`) imports
//!   the upstream's tool, and `McpServer` serves it with `serve_on`, as `toolwire serve` does;
//! - **`toolwire serve`**, the binary, when one is built (`cargo build --release -p
//!   toolwire-cli`; or name it in `TOOLWIRE_BIN`): a manifest with `[mcp_servers.up]`, by
//!   `url` and by `command` (in its default sandbox).
//!
//! The stdio upstream is this benchmark's own executable, started again as the bare rmcp
//! server over stdio. The load generator, the gateway and the upstream share the machine's
//! cores, so a gateway that costs what the upstream costs keeps about half its throughput.
//! Rounds alternate direct and gateway runs; `GATEWAY_LOAD_ROUNDS` sets how many (default 1),
//! and `GATEWAY_LOAD_BINARY_ONLY=1` measures the binary's gateways alone.
//! `GATEWAY_LOAD_OTHERS=1` adds supergateway and mcp-proxy in front of the same stdio
//! upstream, in the same rounds (`load/others.rs`; installed on first use from the pins in
//! `benches/gateways`). `GATEWAY_LOAD_SERVE_THREADS` sets the `toolwire serve` processes'
//! `TOKIO_WORKER_THREADS`.

// A benchmark that cannot set up stops: it may unwrap, expect and panic.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

#[path = "load/client.rs"]
#[allow(dead_code, reason = "the load benchmark's client; this one measures throughput only")]
mod client;
#[path = "load/others.rs"]
mod others;
#[path = "load/servers.rs"]
#[allow(dead_code, reason = "the load benchmark's servers; this one uses the bare rmcp one")]
mod servers;

use std::path::PathBuf;
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

use client::{Protocol, measure};
use serde_json::json;
use tokio::net::TcpListener;
use toolwire::Registry;
use toolwire_mcp::client::{ClientOptions, ImportOptions, McpConfig, RemoteServer};
use toolwire_mcp::server::{HttpOptions, McpServer, serve_on};

/// Set in the environment of the copy of this executable that serves over stdio.
const STDIO_ROLE: &str = "GATEWAY_LOAD_STDIO";

fn main() {
    if std::env::var_os(STDIO_ROLE).is_some() {
        return serve_stdio();
    }
    let runtime = servers::runtime();
    let rounds: usize =
        std::env::var("GATEWAY_LOAD_ROUNDS").ok().and_then(|n| n.parse().ok()).unwrap_or(1);
    runtime.block_on(async {
        let upstream = servers::rmcp_bare().await;
        let mut gateways = Vec::new();
        if std::env::var_os("GATEWAY_LOAD_BINARY_ONLY").is_none() {
            gateways.push(("toolwire-mcp, upstream by url".to_owned(), library_by_url(&upstream.url).await));
            gateways.push(("toolwire-mcp, upstream by command".to_owned(), library_by_command().await));
        }
        let binary = toolwire_binary();
        let mut processes = Vec::new();
        if let Some(binary) = &binary {
            let (url, child) = serve(binary, &format!("url = \"{}\"\n", upstream.url));
            gateways.push(("`toolwire serve`, upstream by url".to_owned(), url));
            processes.push(child);
            let exe = std::env::current_exe().expect("this executable");
            let table = format!("command = {:?}\nenv = [\"{STDIO_ROLE}\"]\n", exe.display().to_string());
            let (url, child) = serve(binary, &table);
            gateways.push(("`toolwire serve`, upstream by command".to_owned(), url));
            processes.push(child);
        } else {
            eprintln!("no toolwire binary (cargo build --release -p toolwire-cli, or TOOLWIRE_BIN): measuring the library gateway only");
        }
        let other_gateways = if std::env::var_os("GATEWAY_LOAD_OTHERS").is_some() {
            others::start(&std::env::current_exe().expect("this executable"), STDIO_ROLE)
        } else {
            Vec::new()
        };
        println!("| setup | protocol | concurrency | req/s | p50 ms | p99 ms | over direct |");
        println!("|---|---|---|---|---|---|---|");
        for round in 1..=rounds {
            for protocol in [Protocol::Stateless, Protocol::Session] {
                for (concurrency, calls) in [(1, 3_000), (64, 30_000)] {
                    let direct = measure(&upstream.url, protocol, concurrency, calls).await;
                    row(round, "direct to the upstream", protocol, concurrency, &direct, direct.per_second);
                    for (name, url) in &gateways {
                        let through = measure(url, protocol, concurrency, calls).await;
                        row(round, name, protocol, concurrency, &through, direct.per_second);
                    }
                    for other in &other_gateways {
                        let name = format!("{}, upstream by command", other.name);
                        match others::try_measure(&other.url, protocol, concurrency, calls).await {
                            Ok(through) => {
                                row(round, &name, protocol, concurrency, &through, direct.per_second);
                            }
                            Err(why) => println!(
                                "| {name} (round {round}) | {} | {concurrency} | no answer: {} | | | |",
                                protocol.version(),
                                why.replace('|', "/").replace('\n', " ")
                            ),
                        }
                    }
                }
            }
        }
        drop(other_gateways);
        drop(processes);
    });
}

/// One line of the table.
fn row(
    round: usize,
    setup: &str,
    protocol: Protocol,
    concurrency: usize,
    stats: &client::Stats,
    direct: f64,
) {
    println!(
        "| {setup} (round {round}) | {} | {concurrency} | {:.0} | {:.3} | {:.3} | {:.2}× |",
        protocol.version(),
        stats.per_second,
        stats.p50.as_secs_f64() * 1e3,
        stats.p99.as_secs_f64() * 1e3,
        stats.per_second / direct,
    );
}

/// The upstream's tool under its own name, served at a new URL.
async fn gateway(remote: RemoteServer) -> String {
    let tools = remote.import_with(&ImportOptions::new().prefix("")).tools;
    let registry = Registry::builder().register_all(tools).seal().expect("one tool");
    let listener = TcpListener::bind("127.0.0.1:0").await.expect("a port");
    let url = format!("http://{}/mcp", listener.local_addr().expect("bound"));
    tokio::spawn(serve_on(listener, McpServer::new(registry), HttpOptions::default()));
    // The connection lives as long as the process.
    std::mem::forget(remote);
    url
}

async fn library_by_url(upstream: &str) -> String {
    let config =
        McpConfig::from_json(&json!({"mcpServers": {"up": {"url": upstream}}}).to_string())
            .expect("config");
    let spec = config.get("up").expect("listed");
    gateway(RemoteServer::connect("up", spec, ClientOptions::new()).await.expect("connects")).await
}

async fn library_by_command() -> String {
    let mut command =
        tokio::process::Command::new(std::env::current_exe().expect("this executable"));
    command.env(STDIO_ROLE, "1");
    let remote =
        RemoteServer::connect_command("up", command, ClientOptions::new()).await.expect("connects");
    gateway(remote).await
}

/// The bare rmcp server over this process's stdin and stdout.
fn serve_stdio() {
    let runtime = servers::runtime();
    runtime.block_on(async {
        use rmcp::ServiceExt as _;
        let running = servers::bare().serve(rmcp::transport::stdio()).await.expect("serves");
        let _ = running.waiting().await;
    });
}

/// The `toolwire` binary to measure: `TOOLWIRE_BIN`, or the release build in the target folder.
fn toolwire_binary() -> Option<PathBuf> {
    if let Some(path) = std::env::var_os("TOOLWIRE_BIN") {
        return Some(PathBuf::from(path));
    }
    let exe = std::env::current_exe().ok()?;
    // target/release/deps/gateway_load-… → target/release/toolwire
    let release = exe.parent()?.parent()?.join("toolwire");
    release.is_file().then_some(release)
}

/// A stopped-when-dropped `toolwire serve --http` of a manifest whose one server is `table`,
/// and its URL once it listens.
fn serve(binary: &PathBuf, table: &str) -> (String, Stopped) {
    static NEXT: std::sync::atomic::AtomicUsize = std::sync::atomic::AtomicUsize::new(0);
    let n = NEXT.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
    let folder =
        std::env::temp_dir().join(format!("toolwire-gateway-load-{}-{n}", std::process::id()));
    std::fs::create_dir_all(&folder).expect("a folder");
    let manifest = folder.join("toolwire.toml");
    std::fs::write(
        &manifest,
        format!("[mcp_servers.up]\nprefix = \"\"\naccept_new = true\n{table}"),
    )
    .expect("written");
    let port = {
        let probe = std::net::TcpListener::bind("127.0.0.1:0").expect("a port");
        probe.local_addr().expect("bound").port()
    };
    let mut command = Command::new(binary);
    if let Some(threads) = std::env::var_os("GATEWAY_LOAD_SERVE_THREADS") {
        command.env("TOKIO_WORKER_THREADS", threads);
    }
    let child = command
        .arg("-m")
        .arg(&manifest)
        .args(["serve", "--http", &format!("127.0.0.1:{port}")])
        .env("XDG_DATA_HOME", folder.join("data"))
        .env(STDIO_ROLE, "1")
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::inherit())
        .spawn()
        .expect("toolwire serve starts");
    let deadline = Instant::now() + Duration::from_secs(60);
    while std::net::TcpStream::connect(("127.0.0.1", port)).is_err() {
        assert!(Instant::now() < deadline, "toolwire serve did not listen");
        std::thread::sleep(Duration::from_millis(50));
    }
    (format!("http://127.0.0.1:{port}/mcp"), Stopped(child, folder))
}

/// A child process and its folder, both gone when dropped.
struct Stopped(Child, PathBuf);

impl Drop for Stopped {
    fn drop(&mut self) {
        let _ = self.0.kill();
        let _ = self.0.wait();
        let _ = std::fs::remove_dir_all(&self.1);
    }
}
