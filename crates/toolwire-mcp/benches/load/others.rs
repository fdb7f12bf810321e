//! The MCP gateways users pick today, measured beside `toolwire serve` when
//! `GATEWAY_LOAD_OTHERS=1`: supergateway 4.0.0 (Node; pinned in `benches/gateways/package.json`
//! and its lockfile), stateless and `--stateful`, and mcp-proxy 0.13.0 (Python; pinned in
//! `benches/gateways/requirements.txt`), each in front of the same stdio upstream as
//! toolwire's `command` gateway (which runs it in its sandbox; these run it as it is).
//!
//! They are installed on first use, which needs the package registries: `npm ci` in
//! `benches/gateways`, and a virtual environment in `target/gateway-load-venv`. A gateway
//! that cannot be installed or started is reported and left out; the others are measured.

use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

use super::client::{Protocol, Stats, measure};

/// A gateway process, stopped when dropped.
pub(crate) struct Other {
    pub(crate) name: &'static str,
    pub(crate) url: String,
    child: Child,
}

impl Drop for Other {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// The folder of the pinned packages.
fn pinned() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../../benches/gateways")
}

/// Each gateway that installs and starts, in front of `upstream`, a command that serves over
/// stdio when `stdio_env` is set in its environment.
pub(crate) fn start(upstream: &Path, stdio_env: &str) -> Vec<Other> {
    let mut started = Vec::new();
    // Stateless (its default), it starts the server for each request, which a 2025-11-25
    // session cannot use; `--stateful` keeps one server per session, which 2026-07-28,
    // without sessions, cannot use. Each is measured on both.
    for stateful in [false, true] {
        match supergateway(upstream, stdio_env, stateful) {
            Ok(other) => started.push(other),
            Err(why) => eprintln!("supergateway is left out: {why}"),
        }
    }
    match mcp_proxy(upstream, stdio_env) {
        Ok(other) => started.push(other),
        Err(why) => eprintln!("mcp-proxy is left out: {why}"),
    }
    started
}

fn supergateway(upstream: &Path, stdio_env: &str, stateful: bool) -> Result<Other, String> {
    let folder = pinned();
    let script = folder.join("node_modules/supergateway/dist/index.js");
    if !script.is_file() {
        run(Command::new("npm").args(["ci", "--no-audit", "--no-fund"]).current_dir(&folder))?;
    }
    let port = free_port()?;
    let mut command = Command::new("node");
    command
        .arg(&script)
        .args(["--stdio", &upstream.display().to_string()])
        .args(["--outputTransport", "streamableHttp", "--port", &port.to_string()])
        .args(["--logLevel", "none"])
        .env(stdio_env, "1");
    if stateful {
        command.arg("--stateful");
        return listening("supergateway --stateful", command, port);
    }
    listening("supergateway", command, port)
}

fn mcp_proxy(upstream: &Path, stdio_env: &str) -> Result<Other, String> {
    let target = target_dir().ok_or("no target folder")?;
    let venv = target.join("gateway-load-venv");
    let proxy = venv.join("bin/mcp-proxy");
    if !proxy.is_file() {
        run(Command::new("python3").args(["-m", "venv"]).arg(&venv))?;
        run(Command::new(venv.join("bin/pip"))
            .args(["install", "--quiet", "-r"])
            .arg(pinned().join("requirements.txt")))?;
    }
    let port = free_port()?;
    let mut command = Command::new(proxy);
    command
        .args(["--host", "127.0.0.1", "--port", &port.to_string(), "--log-level", "WARNING"])
        .args(["-e", stdio_env, "1"])
        .arg(upstream);
    listening("mcp-proxy", command, port)
}

/// Starts `command` and waits until it listens on `port`.
fn listening(name: &'static str, mut command: Command, port: u16) -> Result<Other, String> {
    let child = command
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::inherit())
        .spawn()
        .map_err(|e| format!("cannot start {name}: {e}"))?;
    let other = Other { name, url: format!("http://127.0.0.1:{port}/mcp"), child };
    let deadline = Instant::now() + Duration::from_secs(60);
    while std::net::TcpStream::connect(("127.0.0.1", port)).is_err() {
        if Instant::now() > deadline {
            return Err(format!("{name} did not listen on port {port} within 60 s"));
        }
        std::thread::sleep(Duration::from_millis(50));
    }
    Ok(other)
}

/// Runs an installation step to its end.
fn run(command: &mut Command) -> Result<(), String> {
    let status = command.status().map_err(|e| format!("{command:?}: {e}"))?;
    if status.success() { Ok(()) } else { Err(format!("{command:?} failed: {status}")) }
}

fn free_port() -> Result<u16, String> {
    let probe = std::net::TcpListener::bind("127.0.0.1:0").map_err(|e| e.to_string())?;
    probe.local_addr().map(|addr| addr.port()).map_err(|e| e.to_string())
}

/// `target/` of this build: the bench runs from `target/release/deps/`.
fn target_dir() -> Option<PathBuf> {
    let exe = std::env::current_exe().ok()?;
    Some(exe.parent()?.parent()?.parent()?.to_path_buf())
}

/// [`measure`], for a gateway that may not answer this revision at all: a failed or hanging
/// call is a reason, not a panic. One call (after the warm-up) must come back within 20 s
/// before the measurement starts. Its calls are capped at 3,000, as the slower gateways
/// answer a few hundred a second.
pub(crate) async fn try_measure(
    url: &str,
    protocol: Protocol,
    concurrency: usize,
    calls: usize,
) -> Result<Stats, String> {
    within(url, protocol, 1, 1, Duration::from_secs(20)).await?;
    within(url, protocol, concurrency, calls.min(3_000), Duration::from_secs(120)).await
}

/// [`measure`] on a task of its own, stopped after `limit`; its panic, as a reason.
async fn within(
    url: &str,
    protocol: Protocol,
    concurrency: usize,
    calls: usize,
    limit: Duration,
) -> Result<Stats, String> {
    let url = url.to_owned();
    let run = tokio::spawn(async move { measure(&url, protocol, concurrency, calls).await });
    let stop = run.abort_handle();
    match tokio::time::timeout(limit, run).await {
        Ok(Ok(stats)) => Ok(stats),
        Ok(Err(failed)) => {
            let why = failed.try_into_panic().ok().and_then(|panic| {
                panic
                    .downcast_ref::<String>()
                    .cloned()
                    .or_else(|| panic.downcast_ref::<&str>().map(|s| (*s).to_owned()))
            });
            Err(why.unwrap_or_else(|| "the measurement failed".to_owned()))
        }
        Err(_) => {
            stop.abort();
            Err(format!("no answer within {} s", limit.as_secs()))
        }
    }
}
