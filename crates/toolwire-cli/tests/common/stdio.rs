//! `toolwire serve` on stdio, driven line by line as an MCP client would.

use std::io::{BufRead, BufReader, Write};
use std::process::Stdio;

use serde_json::{Value, json};

use super::binary;

/// `toolwire serve` on stdio, initialized, with a way to send and a way to read.
pub(crate) struct StdioServer {
    child: std::process::Child,
    stdin: std::process::ChildStdin,
    lines: std::io::Lines<BufReader<std::process::ChildStdout>>,
}

impl StdioServer {
    pub(crate) fn start(manifest: &std::path::Path) -> Self {
        let mut child = std::process::Command::new(binary())
            .args(["serve", "-m"])
            .arg(manifest)
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::null())
            .spawn()
            .unwrap_or_else(|error| panic!("cannot start toolwire serve: {error}"));
        let stdin = child.stdin.take().unwrap_or_else(|| panic!("no stdin"));
        let lines =
            BufReader::new(child.stdout.take().unwrap_or_else(|| panic!("no stdout"))).lines();
        let mut server = Self { child, stdin, lines };
        let info = json!({"name": "test", "version": "1"});
        server.send(json!({"jsonrpc": "2.0", "id": 0, "method": "initialize", "params": {"protocolVersion": "2025-06-18", "capabilities": {}, "clientInfo": info}}));
        let _initialized = server.read();
        server.send(json!({"jsonrpc": "2.0", "method": "notifications/initialized"}));
        server
    }

    pub(crate) fn send(&mut self, message: Value) {
        writeln!(self.stdin, "{message}").unwrap_or_else(|error| panic!("write: {error}"));
    }

    pub(crate) fn call(&mut self, id: u64, name: &str, arguments: Value) {
        self.send(json!({"jsonrpc": "2.0", "id": id, "method": "tools/call", "params": {"name": name, "arguments": arguments}}));
    }

    pub(crate) fn read(&mut self) -> Value {
        self.lines
            .next()
            .and_then(Result::ok)
            .and_then(|line| serde_json::from_str(&line).ok())
            .unwrap_or_default()
    }
}

impl Drop for StdioServer {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}
