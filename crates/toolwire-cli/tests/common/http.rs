//! `toolwire serve --http` processes, and a bare HTTP/1.1 client that speaks MCP 2026-07-28
//! to them.

use std::io::{Read, Write};
use std::net::{TcpListener, TcpStream};
use std::path::Path;
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

use serde_json::{Value, json};

/// A `toolwire serve --http` process, stopped when dropped.
pub(crate) struct Served {
    child: Child,
    /// The loopback port it listens on.
    pub(crate) port: u16,
}

impl Drop for Served {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

impl Served {
    /// Serves `manifest` on a free port, with `flags` before the subcommand, once it listens.
    pub(crate) fn start(manifest: &Path, flags: &[&str]) -> Self {
        Self::start_with_args(manifest, flags, &[])
    }

    /// [`start`](Self::start), with `args` after `serve --http ADDR`.
    pub(crate) fn start_with_args(manifest: &Path, flags: &[&str], args: &[&str]) -> Self {
        Self::start_with_env(manifest, flags, args, &[])
    }

    /// [`start_with_args`](Self::start_with_args), with the variables `env` set too.
    pub(crate) fn start_with_env(
        manifest: &Path,
        flags: &[&str],
        args: &[&str],
        env: &[(&str, &Path)],
    ) -> Self {
        let port = free_port();
        let child = Command::new(super::binary())
            .envs(env.iter().copied())
            .args(flags)
            .arg("-m")
            .arg(manifest)
            .args(["serve", "--http", &format!("127.0.0.1:{port}")])
            .args(args)
            .env("XDG_DATA_HOME", super::scratch("data"))
            .stdin(Stdio::null())
            .stdout(Stdio::null())
            .stderr(Stdio::inherit())
            .spawn()
            .unwrap_or_else(|error| panic!("toolwire serve does not start: {error}"));
        let served = Self { child, port };
        let deadline = Instant::now() + Duration::from_secs(30);
        while TcpStream::connect(("127.0.0.1", port)).is_err() {
            assert!(Instant::now() < deadline, "toolwire serve did not listen on {port}");
            std::thread::sleep(Duration::from_millis(50));
        }
        served
    }

    /// The URL of its MCP endpoint.
    pub(crate) fn url(&self) -> String {
        format!("http://127.0.0.1:{}/mcp", self.port)
    }
}

/// A loopback port that nothing listens on.
pub(crate) fn free_port() -> u16 {
    let listener = TcpListener::bind("127.0.0.1:0").expect("a free port");
    listener.local_addr().expect("bound").port()
}

/// A 2026-07-28 `tools/call` of `tool` with `arguments` to the server on `port`, from a client
/// that takes elicitations; with a retry's `requestState` and `inputResponses` when given.
pub(crate) fn call_tool(
    port: u16,
    tool: &str,
    arguments: Value,
    retry: Option<(&str, Value)>,
) -> Value {
    let mut params = json!({
        "name": tool,
        "arguments": arguments,
        "_meta": {
            "io.modelcontextprotocol/protocolVersion": "2026-07-28",
            "io.modelcontextprotocol/clientCapabilities": {"elicitation": {}},
        }
    });
    if let Some((state, responses)) = retry {
        params["requestState"] = json!(state);
        params["inputResponses"] = responses;
    }
    let body = json!({"jsonrpc": "2.0", "id": 1, "method": "tools/call", "params": params});
    post(port, ("tools/call", tool), &body.to_string())
}

/// POSTs `body`, a request of `method` whose `Mcp-Name` is `name`, to the server's `/mcp` and
/// reads the JSON-RPC reply (plain JSON, or the last message of an SSE stream).
pub(crate) fn post(port: u16, (method, name): (&str, &str), body: &str) -> Value {
    let (status, reply) = post_with(port, (method, name), body, &[]);
    assert!(!reply.is_null(), "no JSON-RPC reply: {status}");
    reply
}

/// [`post`] with more `headers`; the status line, and the reply (null when there is none).
pub(crate) fn post_with(
    port: u16,
    (method, name): (&str, &str),
    body: &str,
    headers: &[(&str, String)],
) -> (String, Value) {
    let mut stream = TcpStream::connect(("127.0.0.1", port)).expect("connects");
    stream.set_read_timeout(Some(Duration::from_secs(30))).expect("a timeout");
    let extra: String = headers.iter().map(|(n, v)| format!("{n}: {v}\r\n")).collect();
    let head = format!(
        "POST /mcp HTTP/1.1\r\nHost: 127.0.0.1:{port}\r\nContent-Type: application/json\r\n\
         Accept: application/json, text/event-stream\r\nMCP-Protocol-Version: 2026-07-28\r\n\
         Mcp-Method: {method}\r\nMcp-Name: {name}\r\n{extra}Content-Length: {}\r\n\
         Connection: close\r\n\r\n",
        body.len()
    );
    stream.write_all(head.as_bytes()).expect("writes");
    stream.write_all(body.as_bytes()).expect("writes");
    let mut raw = String::new();
    stream.read_to_string(&mut raw).expect("reads the reply");
    let (head, payload) = raw.split_once("\r\n\r\n").unwrap_or_default();
    let status = head.lines().next().unwrap_or_default().to_owned();
    (status, reply_of(payload))
}

/// The JSON-RPC message of a reply's body: plain JSON, or the last message of an SSE stream;
/// null when there is none.
fn reply_of(payload: &str) -> Value {
    if let Ok(value) = serde_json::from_str(payload) {
        return value;
    }
    let data = payload.lines().filter_map(|line| line.strip_prefix("data:")).map(str::trim);
    let mut data = data.filter(|d| d.starts_with('{'));
    let last = data.next_back().unwrap_or("null");
    serde_json::from_str(last).unwrap_or(Value::Null)
}
