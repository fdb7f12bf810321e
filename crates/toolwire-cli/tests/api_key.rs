//! `toolwire run`'s API key: required for the providers' own APIs, where a run without one
//! sends nothing; optional for a server given with `--base-url`.
//!
//! The providers' hosts are reached through `HTTPS_PROXY`, a local listener that counts the
//! connections made to it: nothing is sent when it counts none.

use crate::common;

use std::net::{TcpListener, TcpStream};
use std::process::{Command, Stdio};
use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::{Duration, Instant};

use crate::common::model::{mock_model, saying};
use crate::common::{binary, example, stderr, stdout, toolwire};

/// A proxy that counts the connections made to it, and closes each at once.
struct CountingProxy {
    url: String,
    address: std::net::SocketAddr,
    count: Arc<AtomicUsize>,
}

impl CountingProxy {
    fn start() -> Self {
        let listener = TcpListener::bind("127.0.0.1:0").unwrap_or_else(|e| panic!("{e}"));
        let address = listener.local_addr().unwrap_or_else(|e| panic!("{e}"));
        let count = Arc::new(AtomicUsize::new(0));
        let counted = count.clone();
        std::thread::spawn(move || {
            for stream in listener.incoming() {
                counted.fetch_add(1, Ordering::SeqCst);
                drop(stream);
            }
        });
        Self { url: format!("http://{address}"), address, count }
    }

    /// The connections made so far by others: this connects once more itself, and waits for
    /// that one to be counted, so every earlier one has been.
    fn connections(&self) -> usize {
        let before = self.count.load(Ordering::SeqCst);
        let _sentinel = TcpStream::connect(self.address).unwrap_or_else(|e| panic!("{e}"));
        let deadline = Instant::now() + Duration::from_secs(10);
        while self.count.load(Ordering::SeqCst) == before {
            assert!(Instant::now() < deadline, "the proxy stopped counting");
            std::thread::sleep(Duration::from_millis(5));
        }
        self.count.fetch_sub(1, Ordering::SeqCst) - 1
    }
}

/// `toolwire run` with every key and proxy variable of the test's own cleared, its HTTPS
/// through `proxy`.
fn run(proxy: &CountingProxy, args: &[&str]) -> assert_cmd::Command {
    let mut command = toolwire();
    command.args(["run", "hello"]).args(args).arg("-m").arg(example());
    command.arg("--journal").arg(common::scratch("journal").join("journal.sqlite"));
    for name in ["OPENAI_API_KEY", "ANTHROPIC_API_KEY", "GEMINI_API_KEY", "GOOGLE_API_KEY"] {
        command.env_remove(name);
    }
    for name in [
        "NO_PROXY",
        "no_proxy",
        "ALL_PROXY",
        "all_proxy",
        "https_proxy",
        "HTTP_PROXY",
        "http_proxy",
    ] {
        command.env_remove(name);
    }
    command.env("HTTPS_PROXY", &proxy.url);
    command
}

#[test]
fn regression_a_missing_api_key_sent_requests_without_one() {
    let proxy = CountingProxy::start();
    let output =
        run(&proxy, &["--model", "openai:gpt-4.1"]).output().unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(output.status.code(), Some(2), "{}", stderr(&output));
    let said = stderr(&output);
    assert!(said.contains("no API key: set OPENAI_API_KEY"), "{said}");
    // The provider's own host given as --base-url needs the key just the same.
    let mut own =
        run(&proxy, &["--model", "openai:gpt-4.1", "--base-url", "https://api.openai.com/v1"]);
    own.assert().code(2).stderr(predicates::str::contains("OPENAI_API_KEY"));
    assert_eq!(proxy.connections(), 0, "a request went out without a key");
}

#[test]
fn with_a_key_the_request_goes_out() {
    // The control of the test above: the proxy does see the provider's requests.
    let proxy = CountingProxy::start();
    let mut child = Command::new(binary())
        .args(["run", "hello", "--model", "openai:gpt-4.1", "-m"])
        .arg(example())
        .arg("--journal")
        .arg(common::scratch("journal").join("journal.sqlite"))
        .env("XDG_DATA_HOME", common::scratch("data"))
        .env("OPENAI_API_KEY", "sk-test")
        .env("HTTPS_PROXY", &proxy.url)
        .env_remove("NO_PROXY")
        .env_remove("no_proxy")
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .unwrap_or_else(|e| panic!("{e}"));
    let deadline = Instant::now() + Duration::from_secs(20);
    while proxy.count.load(Ordering::SeqCst) == 0 && Instant::now() < deadline {
        std::thread::sleep(Duration::from_millis(10));
    }
    let _ = child.kill();
    let _ = child.wait();
    assert!(proxy.count.load(Ordering::SeqCst) > 0, "the run never reached the proxy");
}

#[test]
fn the_error_names_each_providers_variable() {
    let proxy = CountingProxy::start();
    let cases = [
        (
            "anthropic:claude-sonnet-4-5",
            "set ANTHROPIC_API_KEY for the requests to https://api.anthropic.com/v1",
        ),
        ("gemini:gemini-2.5-flash", "set GEMINI_API_KEY or GOOGLE_API_KEY"),
        ("responses:o4-mini", "set OPENAI_API_KEY"),
    ];
    for (model, expected) in cases {
        run(&proxy, &["--model", model])
            .assert()
            .code(2)
            .stderr(predicates::str::contains(expected));
    }
    assert_eq!(proxy.connections(), 0, "a request went out without a key");
}

#[test]
fn a_server_of_ones_own_needs_no_key() {
    let proxy = CountingProxy::start();
    let (url, server) = mock_model(vec![saying("hello back")]);
    let output = run(&proxy, &["--model", "openai:local-model", "--base-url", &url])
        .output()
        .unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(output.status.code(), Some(0), "{}", stderr(&output));
    assert!(stdout(&output).contains("hello back"), "{}", stdout(&output));
    let seen = server.join().unwrap_or_else(|_| panic!("the mock server failed"));
    assert_eq!(seen.len(), 1);
    assert!(!seen[0].head.to_ascii_lowercase().contains("authorization:"), "{}", seen[0].head);
}
