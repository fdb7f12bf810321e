//! The inbox's speed, against `toolwire` itself, on SQLite: a `toolwire inbox` process
//! serving a journal of 1,000 waiting calls, timed over loopback HTTP.
//!
//! - `inbox/first_load`: `GET /` (the whole page, 1,000 items) on a new connection;
//! - `inbox/api_waiting`: `GET /api/waiting`, the same items as JSON;
//! - `answer/inbox_decline`: `POST /api/answer` declining a call: recorded with its
//!   approver, and the call settled as refused (nothing runs);
//! - `answer/inbox_approve`: the same, approving: the call runs (`true`) and its result
//!   comes back;
//! - `answer/approvals_answer` (the baseline): `toolwire approvals answer ID`, which only
//!   records the answer.
//!
//! `cargo bench -p toolwire-cli --bench inbox`. Each answer takes a call of its own, from a
//! second journal of waiting calls.

// A benchmark fails by panicking: it may unwrap and expect.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use std::io::{BufRead, BufReader, Read, Write};
use std::net::{TcpListener, TcpStream};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::sync::Mutex;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::{Duration, Instant};

use criterion::{Criterion, criterion_group, criterion_main};
use serde_json::json;
use toolwire::{Registry, Tool, ToolResult};

/// The waiting calls of the page's journal.
const LISTED: usize = 1_000;

/// The waiting calls the answers take.
const POOL: usize = 6_000;

const MANIFEST: &str = r#"
[[tool]]
name = "deploy"
description = "Deploy the service to an environment"
destructive = true
needs_approval = true
parameters = { type = "object", properties = { env = { type = "string", description = "Where it goes" } }, required = ["env"] }
[tool.command]
argv = ["true", "{env}"]
sandbox = "none"
"#;

/// A `toolwire inbox` process, stopped when dropped.
struct Inbox {
    child: Child,
    port: u16,
    cookie: String,
    token: String,
}

impl Drop for Inbox {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

fn toolwire() -> PathBuf {
    PathBuf::from(env!("CARGO_BIN_EXE_toolwire"))
}

/// Fills the journal at `path` with `count` calls of `deploy` that wait for approval,
/// under call ids `c0`, `c1`, ...
fn fill(path: &Path, count: usize) {
    let runtime =
        tokio::runtime::Builder::new_multi_thread().enable_all().build().expect("a runtime");
    runtime.block_on(async {
        let url = format!("sqlite:{}", path.display());
        let journal = toolwire_journal::Journal::open(&url).await.expect("opens the journal");
        let tool = Tool::define("deploy")
            .parameters(json!({"type": "object", "properties": {"env": {"type": "string"}}, "required": ["env"]}))
            .needs_approval(true)
            .execute_sync(|_, _| ToolResult::ok(json!({}), "never runs here"))
            .build()
            .expect("a tool");
        let registry = Registry::builder()
            .register(tool)
            .approval_key(journal.approval_key())
            .seal()
            .expect("a registry");
        let mut calls = Vec::new();
        for n in 0..count {
            let (journal, registry) = (journal.clone(), registry.clone());
            calls.push(tokio::spawn(async move {
                let arguments = json!({"env": format!("env-{n}")});
                journal.invoke(&registry, "deploy", arguments).call_id(format!("c{n}")).await
            }));
            if calls.len() == 64 {
                for call in calls.drain(..) {
                    call.await.expect("joins").expect("parks");
                }
            }
        }
        for call in calls {
            call.await.expect("joins").expect("parks");
        }
        journal.close().await;
    });
}

fn free_port() -> u16 {
    TcpListener::bind("127.0.0.1:0").and_then(|l| l.local_addr()).expect("a port").port()
}

/// Serves the inbox of `journal`, logged in.
fn serve(manifest: &Path, journal: &Path, expected: usize) -> Inbox {
    let port = free_port();
    let mut child = Command::new(toolwire())
        .arg("--journal")
        .arg(journal)
        .arg("-m")
        .arg(manifest)
        .args(["inbox", "--addr", &format!("127.0.0.1:{port}")])
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .spawn()
        .expect("toolwire inbox starts");
    let mut lines = BufReader::new(child.stderr.take().expect("stderr")).lines();
    let line = lines.next().and_then(Result::ok).unwrap_or_default();
    std::thread::spawn(move || lines.for_each(drop));
    let token = line.split("token=").nth(1).expect("a token").trim().to_owned();
    let mut inbox = Inbox { child, port, cookie: String::new(), token };
    let login = inbox.send("GET", &format!("/?token={}", inbox.token), "", "");
    let cookie = login.lines().find_map(|l| l.strip_prefix("set-cookie: ")).expect("a cookie");
    inbox.cookie = cookie.split(';').next().unwrap_or_default().to_owned();
    // Until the feed has read the journal.
    let deadline = Instant::now() + Duration::from_secs(60);
    while !inbox
        .send("GET", "/api/waiting", "", "")
        .contains(&format!("\"call_id\":\"c{}\"", expected - 1))
    {
        assert!(Instant::now() < deadline, "the inbox did not list the calls");
        std::thread::sleep(Duration::from_millis(100));
    }
    inbox
}

impl Inbox {
    /// One request on a new connection, with the bearer token; the whole reply.
    fn send(&self, method: &str, path: &str, extra: &str, body: &str) -> String {
        let mut stream = TcpStream::connect(("127.0.0.1", self.port)).expect("connects");
        let head = format!(
            "{method} {path} HTTP/1.1\r\nHost: 127.0.0.1:{}\r\nCookie: {}\r\n\
             Authorization: Bearer {}\r\n{extra}Content-Type: application/json\r\n\
             Content-Length: {}\r\nConnection: close\r\n\r\n",
            self.port,
            self.cookie,
            self.token,
            body.len()
        );
        stream.write_all(head.as_bytes()).expect("writes");
        stream.write_all(body.as_bytes()).expect("writes");
        let mut reply = String::new();
        stream.read_to_string(&mut reply).expect("reads");
        reply
    }

    /// The page, as a browser with the session cookie gets it.
    fn page(&self) -> String {
        let mut stream = TcpStream::connect(("127.0.0.1", self.port)).expect("connects");
        let head = format!(
            "GET / HTTP/1.1\r\nHost: 127.0.0.1:{}\r\nCookie: {}\r\nConnection: close\r\n\r\n",
            self.port, self.cookie
        );
        stream.write_all(head.as_bytes()).expect("writes");
        let mut reply = String::new();
        stream.read_to_string(&mut reply).expect("reads");
        reply
    }
}

fn benches(c: &mut Criterion) {
    let folder = std::env::temp_dir().join(format!("toolwire-inbox-bench-{}", std::process::id()));
    std::fs::create_dir_all(&folder).expect("a folder");
    let manifest = folder.join("tools.toml");
    std::fs::write(&manifest, MANIFEST).expect("writes the manifest");
    let (listed, pool) = (folder.join("listed.sqlite"), folder.join("pool.sqlite"));
    fill(&listed, LISTED);
    fill(&pool, POOL);

    {
        let inbox = serve(&manifest, &listed, LISTED);
        let page = inbox.page();
        assert!(page.starts_with("HTTP/1.1 200"), "{}", &page[..page.len().min(300)]);
        assert_eq!(page.matches("<li class=\"item\"").count(), LISTED, "the page lists every call");
        let mut group = c.benchmark_group("inbox");
        group.bench_function("first_load", |b| b.iter(|| inbox.page()));
        group.bench_function("api_waiting", |b| {
            b.iter(|| inbox.send("GET", "/api/waiting", "", ""))
        });
        group.finish();
    }

    let inbox = serve(&manifest, &pool, POOL);
    let requests: Vec<(String, String)> = {
        let listed = inbox.send("GET", "/api/waiting", "", "");
        let body = listed.split_once("\r\n\r\n").map(|(_, b)| b).unwrap_or_default();
        let value: serde_json::Value = serde_json::from_str(body).expect("JSON");
        let items = value["items"].as_array().cloned().unwrap_or_default();
        let pairs = items.iter().map(|i| {
            (
                i["request_id"].as_str().unwrap_or_default().to_owned(),
                i["call_id"].as_str().unwrap_or_default().to_owned(),
            )
        });
        pairs.collect()
    };
    let next = AtomicUsize::new(0);
    let take = || {
        let n = next.fetch_add(1, Ordering::Relaxed);
        requests
            .get(n)
            .cloned()
            .unwrap_or_else(|| panic!("the pool of {POOL} waiting calls ran out"))
    };
    let failures = Mutex::new(Vec::new());
    let answer = |action: &str| {
        let (request, _) = take();
        let body = json!({"request_id": request, "action": action}).to_string();
        let reply = inbox.send("POST", "/api/answer", "", &body);
        if !reply.starts_with("HTTP/1.1 200") {
            failures.lock().expect("a lock").push(reply);
        }
    };
    let mut group = c.benchmark_group("answer");
    group
        .sample_size(30)
        .warm_up_time(Duration::from_secs(1))
        .measurement_time(Duration::from_secs(4));
    group.bench_function("inbox_decline", |b| b.iter(|| answer("decline")));
    group.bench_function("inbox_approve", |b| b.iter(|| answer("approve")));
    group.bench_function("approvals_answer", |b| {
        b.iter(|| {
            let (_, call) = take();
            let status = Command::new(toolwire())
                .arg("--journal")
                .arg(&pool)
                .args(["approvals", "answer", &call])
                .stdout(Stdio::null())
                .stderr(Stdio::null())
                .status()
                .expect("runs");
            assert!(status.success());
        })
    });
    group.finish();
    let failures = failures.into_inner().expect("a lock");
    assert!(failures.is_empty(), "{} answers failed, first: {}", failures.len(), failures[0]);
    drop(inbox);
    let _ = std::fs::remove_dir_all(&folder);
}

criterion_group!(inbox, benches);
criterion_main!(inbox);
