//! `toolwire inbox` processes, calls that wait in their journal, and a bare HTTP client for
//! the inbox's pages and API.

use std::io::{BufRead, BufReader, Read, Write};
use std::net::TcpStream;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use serde_json::Value;

use super::http::free_port;

/// A manifest whose `deploy` needs approval and adds a line to `runs.log` beside it at each
/// run; its path.
pub(crate) fn deploy_manifest() -> PathBuf {
    let folder = super::scratch("inbox");
    let runs = folder.join("runs.log");
    let text = format!(
        r#"
[[tool]]
name = "deploy"
title = "Deploy"
description = "Deploy the service to an environment"
destructive = true
needs_approval = true
parameters = {{ type = "object", properties = {{ env = {{ type = "string", description = "Where it goes" }}, note = {{ type = "string", description = "Why" }} }}, required = ["env"] }}
[tool.command]
argv = ["sh", "-c", "echo \"$1\" >> \"$2\"; echo \"deployed $1\"", "deploy", "{{env}}", {runs:?}]
timeout = "10s"
sandbox = "none"
"#,
        runs = runs.display().to_string()
    );
    let path = folder.join("tools.toml");
    std::fs::write(&path, text).expect("writes the manifest");
    path
}

/// The environments `deploy` ran for, in order, from the manifest's `runs.log`.
pub(crate) fn runs(manifest: &Path) -> Vec<String> {
    let log = manifest.with_file_name("runs.log");
    std::fs::read_to_string(log).unwrap_or_default().lines().map(str::to_owned).collect()
}

/// The journal beside `manifest`.
pub(crate) fn journal_of(manifest: &Path) -> PathBuf {
    manifest.with_file_name("journal.sqlite")
}

/// Makes a call of `deploy` to `env` under `call_id` that waits for approval (exit 3).
pub(crate) fn waiting_call(manifest: &Path, call_id: &str, arguments: &str) {
    let output = super::toolwire()
        .arg("--journal")
        .arg(journal_of(manifest))
        .arg("-m")
        .arg(manifest)
        .args(["call", "deploy", "--args", arguments, "--call-id", call_id])
        .output()
        .expect("runs");
    assert_eq!(output.status.code(), Some(3), "{}", super::stderr(&output));
}

/// A `toolwire inbox` process, stopped when dropped.
pub(crate) struct Inbox {
    child: Child,
    /// Its loopback port.
    pub(crate) port: u16,
    /// The access token it printed.
    pub(crate) token: String,
    /// What it wrote on stderr so far.
    said: Arc<Mutex<String>>,
}

impl Drop for Inbox {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

impl Inbox {
    /// The inbox of `manifest`'s journal, with `more` arguments after `inbox`, once it
    /// listens.
    pub(crate) fn start(manifest: &Path, more: &[&str]) -> Self {
        let port = free_port();
        let mut command = Command::new(super::binary());
        command
            .arg("--journal")
            .arg(journal_of(manifest))
            .arg("-m")
            .arg(manifest)
            .args(["inbox", "--addr", &format!("127.0.0.1:{port}")])
            .args(more);
        Self::spawn(command, port, "inbox")
    }

    /// Runs `command`, which serves an inbox on `port`, and reads its token from stderr.
    pub(crate) fn spawn(mut command: Command, port: u16, what: &str) -> Self {
        let mut child = command
            .env("XDG_DATA_HOME", super::scratch("data"))
            .env("USER", "operator")
            .stdin(Stdio::null())
            .stdout(Stdio::null())
            .stderr(Stdio::piped())
            .spawn()
            .unwrap_or_else(|error| panic!("{what} does not start: {error}"));
        let said = Arc::new(Mutex::new(String::new()));
        let lines = BufReader::new(child.stderr.take().expect("its stderr"));
        let kept = Arc::clone(&said);
        std::thread::spawn(move || {
            for line in lines.lines().map_while(Result::ok) {
                let mut kept = kept.lock().unwrap_or_else(std::sync::PoisonError::into_inner);
                kept.push_str(&line);
                kept.push('\n');
            }
        });
        let mut inbox = Self { child, port, token: String::new(), said };
        let deadline = Instant::now() + Duration::from_secs(30);
        loop {
            let text = inbox.stderr();
            if let Some(at) = text.find("/?token=") {
                let rest = &text[at + "/?token=".len()..];
                inbox.token = rest.split_whitespace().next().unwrap_or_default().to_owned();
                break;
            }
            if let Ok(Some(status)) = inbox.child.try_wait() {
                panic!("{what} exited ({status}): {text}");
            }
            assert!(Instant::now() < deadline, "{what} printed no token: {text}");
            std::thread::sleep(Duration::from_millis(50));
        }
        inbox
    }

    /// What it wrote on stderr so far.
    pub(crate) fn stderr(&self) -> String {
        self.said.lock().unwrap_or_else(std::sync::PoisonError::into_inner).clone()
    }

    /// The address that logs in, as it printed it.
    pub(crate) fn login_url(&self) -> String {
        format!("http://127.0.0.1:{}/?token={}", self.port, self.token)
    }

    /// A request to the inbox, with its own `Host` header unless `headers` set one.
    pub(crate) fn send(
        &self,
        method: &str,
        path: &str,
        headers: &[(&str, &str)],
        body: &str,
    ) -> Reply {
        let port = self.port;
        let host = format!("127.0.0.1:{port}");
        let mut lines = String::new();
        if !headers.iter().any(|(name, _)| name.eq_ignore_ascii_case("host")) {
            lines.push_str(&format!("Host: {host}\r\n"));
        }
        for (name, value) in headers {
            lines.push_str(&format!("{name}: {value}\r\n"));
        }
        let mut stream = TcpStream::connect(("127.0.0.1", port)).expect("connects");
        stream.set_read_timeout(Some(Duration::from_secs(30))).expect("a timeout");
        let head = format!(
            "{method} {path} HTTP/1.1\r\n{lines}Content-Length: {}\r\nConnection: close\r\n\r\n",
            body.len()
        );
        stream.write_all(head.as_bytes()).expect("writes");
        let _ = stream.write_all(body.as_bytes());
        let mut raw = Vec::new();
        let _ = stream.read_to_end(&mut raw);
        let raw = String::from_utf8_lossy(&raw).into_owned();
        let (head, body) = raw.split_once("\r\n\r\n").unwrap_or((&raw, ""));
        let status = head.split(' ').nth(1).and_then(|s| s.parse().ok()).unwrap_or(0);
        Reply { status, head: head.to_owned(), body: body.to_owned() }
    }

    /// A request with the bearer `token`.
    pub(crate) fn api(&self, method: &str, path: &str, token: &str, body: &str) -> Reply {
        let bearer = format!("Bearer {token}");
        let headers = [("Authorization", bearer.as_str()), ("Content-Type", "application/json")];
        self.send(method, path, &headers, body)
    }

    /// A logged-in browser's cookie header and its CSRF token.
    pub(crate) fn session(&self) -> (String, String) {
        let login = self.send("GET", &format!("/?token={}", self.token), &[], "");
        assert_eq!(login.status, 303, "{}", login.head);
        let cookie = login
            .header("set-cookie")
            .and_then(|c| c.split(';').next().map(str::to_owned))
            .expect("a cookie");
        let page = self.send("GET", "/", &[("Cookie", &cookie)], "");
        let csrf = page
            .body
            .split("name=\"csrf-token\" content=\"")
            .nth(1)
            .and_then(|rest| rest.split('"').next())
            .expect("a CSRF token in the page")
            .to_owned();
        (cookie, csrf)
    }

    /// The waiting items, as `GET /api/waiting` lists them.
    pub(crate) fn waiting(&self) -> Vec<Value> {
        let reply = self.api("GET", "/api/waiting", &self.token, "");
        assert_eq!(reply.status, 200, "{}", reply.body);
        reply.json()["items"].as_array().cloned().unwrap_or_default()
    }

    /// Waits (10 s at most) until the item of `call_id` is listed, and returns its request id.
    pub(crate) fn request_of(&self, call_id: &str) -> String {
        let deadline = Instant::now() + Duration::from_secs(10);
        loop {
            let found = self.waiting().into_iter().find(|item| item["call_id"] == call_id);
            if let Some(item) = found {
                return item["request_id"].as_str().unwrap_or_default().to_owned();
            }
            assert!(Instant::now() < deadline, "{call_id} is not listed");
            std::thread::sleep(Duration::from_millis(100));
        }
    }
}

/// An HTTP reply.
#[derive(Debug)]
pub(crate) struct Reply {
    /// Its status code.
    pub(crate) status: u16,
    /// Its status line and headers.
    pub(crate) head: String,
    /// Its body.
    pub(crate) body: String,
}

impl Reply {
    /// The header `name`'s value, if it has one.
    pub(crate) fn header(&self, name: &str) -> Option<String> {
        self.head.lines().find_map(|line| {
            let (key, value) = line.split_once(':')?;
            key.trim().eq_ignore_ascii_case(name).then(|| value.trim().to_owned())
        })
    }

    /// The body as JSON (null when it is not).
    pub(crate) fn json(&self) -> Value {
        serde_json::from_str(&self.body).unwrap_or(Value::Null)
    }
}
