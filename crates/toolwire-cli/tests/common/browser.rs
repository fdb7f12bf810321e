//! A headless Chromium driven over WebDriver (Debian's `chromium` and `chromium-driver`),
//! with a bare HTTP/1.1 client of the protocol's few commands the inbox tests use.
//!
//! Like PostgreSQL for the journal's tests, the browser is found on the machine: a test
//! that cannot find it fails, saying what to install.

use std::io::{Read, Write};
use std::net::TcpStream;
use std::path::PathBuf;
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

use serde_json::{Value, json};

use super::http::free_port;

/// The W3C name of an element reference in WebDriver's JSON.
const ELEMENT: &str = "element-6066-11e4-a52e-4f735466cecf";

/// A program on `PATH` or at one of `places`.
fn program(names: &[&str], places: &[&str]) -> Option<PathBuf> {
    let path = std::env::var_os("PATH").unwrap_or_default();
    let on_path = std::env::split_paths(&path)
        .flat_map(|dir| names.iter().map(move |name| dir.join(name)))
        .find(|candidate| candidate.is_file());
    on_path.or_else(|| places.iter().map(PathBuf::from).find(|p| p.is_file()))
}

/// A browser session, with its driver; both end when it is dropped.
pub(crate) struct Browser {
    driver: Child,
    port: u16,
    session: String,
}

impl Drop for Browser {
    fn drop(&mut self) {
        // Closing the session ends the browser; then the driver goes.
        let _ = request(self.port, "DELETE", &format!("/session/{}", self.session), None);
        let _ = self.driver.kill();
        let _ = self.driver.wait();
    }
}

impl Browser {
    /// A new headless browser, with a profile of its own in a scratch folder.
    pub(crate) fn start() -> Self {
        let missing = "the inbox's browser tests need Chromium and its WebDriver: install \
                       Debian's `chromium` and `chromium-driver` (apt-get install chromium \
                       chromium-driver)";
        let driver_path = program(&["chromedriver"], &["/usr/lib/chromium/chromedriver"])
            .unwrap_or_else(|| panic!("{missing}: no chromedriver"));
        let browser_path =
            program(&["chromium", "chromium-browser"], &["/usr/lib/chromium/chromium"])
                .unwrap_or_else(|| panic!("{missing}: no chromium"));
        let port = free_port();
        // Chromium may keep folders of its own in the temporary folder: in the test's scratch
        // folder, they go with it.
        let driver = Command::new(driver_path)
            .arg(format!("--port={port}"))
            .env("TMPDIR", super::scratch("chromium-tmp"))
            .stdin(Stdio::null())
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .spawn()
            .unwrap_or_else(|error| panic!("chromedriver does not start: {error}"));
        let mut browser = Self { driver, port, session: String::new() };
        let deadline = Instant::now() + Duration::from_secs(30);
        while request(port, "GET", "/status", None).is_err() {
            assert!(Instant::now() < deadline, "chromedriver did not listen on {port}");
            std::thread::sleep(Duration::from_millis(50));
        }
        let profile = super::scratch("chromium-profile");
        let capabilities = json!({"capabilities": {"alwaysMatch": {
            "browserName": "chrome",
            "goog:chromeOptions": {
                "binary": browser_path,
                "args": [
                    "--headless=new", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage",
                    "--window-size=1280,900", "--no-first-run", "--disable-extensions",
                    format!("--user-data-dir={}", profile.display()),
                ],
            },
        }}});
        let created = request(port, "POST", "/session", Some(&capabilities))
            .unwrap_or_else(|error| panic!("no browser session: {error}"));
        browser.session = created["sessionId"]
            .as_str()
            .unwrap_or_else(|| panic!("no browser session: {created}"))
            .to_owned();
        browser
    }

    fn command(&self, method: &str, path: &str, body: Option<&Value>) -> Value {
        let path = format!("/session/{}{path}", self.session);
        request(self.port, method, &path, body)
            .unwrap_or_else(|error| panic!("WebDriver {method} {path}: {error}"))
    }

    /// Opens `url` in the current tab.
    pub(crate) fn go(&self, url: &str) {
        self.command("POST", "/url", Some(&json!({"url": url})));
    }

    /// Runs `script` (a function body; `arguments` are `args`) in the page, and returns what
    /// it returns.
    pub(crate) fn js(&self, script: &str, args: &[Value]) -> Value {
        self.command("POST", "/execute/sync", Some(&json!({"script": script, "args": args})))
    }

    /// The element `css` selects, once it exists (within 10 seconds).
    pub(crate) fn find(&self, css: &str) -> String {
        let deadline = Instant::now() + Duration::from_secs(10);
        loop {
            let path = format!("/session/{}/element", self.session);
            let body = json!({"using": "css selector", "value": css});
            let found = request(self.port, "POST", &path, Some(&body)).unwrap_or_default();
            if let Some(id) = found[ELEMENT].as_str() {
                return id.to_owned();
            }
            assert!(Instant::now() < deadline, "no element {css:?} in the page");
            std::thread::sleep(Duration::from_millis(100));
        }
    }

    /// Clicks the element `css` selects.
    pub(crate) fn click(&self, css: &str) {
        let id = self.find(css);
        self.command("POST", &format!("/element/{id}/click"), Some(&json!({})));
    }

    /// Types `text` into the element `css` selects.
    pub(crate) fn type_into(&self, css: &str, text: &str) {
        let id = self.find(css);
        self.command("POST", &format!("/element/{id}/value"), Some(&json!({"text": text})));
    }

    /// The text of the element `css` selects.
    pub(crate) fn text(&self, css: &str) -> String {
        let id = self.find(css);
        self.command("GET", &format!("/element/{id}/text"), None)
            .as_str()
            .unwrap_or_default()
            .to_owned()
    }

    /// Waits (10 seconds at most) until `script` returns true in the page.
    pub(crate) fn wait_until(&self, script: &str, what: &str) {
        let deadline = Instant::now() + Duration::from_secs(10);
        while self.js(script, &[]) != Value::Bool(true) {
            assert!(Instant::now() < deadline, "timed out waiting for {what}");
            std::thread::sleep(Duration::from_millis(100));
        }
    }

    /// Opens a new tab and switches to it; returns the handle of the tab it left.
    pub(crate) fn new_tab(&self) -> String {
        let left = self.command("GET", "/window", None).as_str().unwrap_or_default().to_owned();
        let opened = self.command("POST", "/window/new", Some(&json!({"type": "tab"})));
        let handle = opened["handle"].as_str().unwrap_or_default().to_owned();
        self.switch_to(&handle);
        left
    }

    /// Switches to the tab `handle`; returns the handle of the tab it left.
    pub(crate) fn switch_to(&self, handle: &str) -> String {
        let left = self.command("GET", "/window", None).as_str().unwrap_or_default().to_owned();
        self.command("POST", "/window", Some(&json!({"handle": handle})));
        left
    }

    /// The browser's cookie `name`, as WebDriver describes it.
    pub(crate) fn cookie(&self, name: &str) -> Value {
        self.command("GET", &format!("/cookie/{name}"), None)
    }

    /// A PNG of the current tab.
    pub(crate) fn screenshot(&self) -> Vec<u8> {
        use base64::Engine as _;
        let encoded = self.command("GET", "/screenshot", None);
        base64::engine::general_purpose::STANDARD
            .decode(encoded.as_str().unwrap_or_default())
            .expect("a PNG in base64")
    }
}

/// One WebDriver command: its `value`, or the error WebDriver gave.
fn request(port: u16, method: &str, path: &str, body: Option<&Value>) -> Result<Value, String> {
    let mut stream = TcpStream::connect(("127.0.0.1", port)).map_err(|e| e.to_string())?;
    stream.set_read_timeout(Some(Duration::from_secs(60))).map_err(|e| e.to_string())?;
    let body = body.map(Value::to_string).unwrap_or_default();
    let head = format!(
        "{method} {path} HTTP/1.1\r\nHost: 127.0.0.1:{port}\r\nContent-Type: application/json\r\n\
         Content-Length: {}\r\nConnection: close\r\n\r\n",
        body.len()
    );
    stream.write_all(head.as_bytes()).map_err(|e| e.to_string())?;
    stream.write_all(body.as_bytes()).map_err(|e| e.to_string())?;
    // The driver keeps the connection open: the reply ends where its length says.
    let mut raw = Vec::new();
    let mut buffer = [0u8; 16 * 1024];
    let payload = loop {
        let n = stream.read(&mut buffer).map_err(|e| e.to_string())?;
        if n == 0 {
            return Err(format!(
                "the driver closed the connection: {}",
                String::from_utf8_lossy(&raw)
            ));
        }
        raw.extend_from_slice(&buffer[..n]);
        let text = String::from_utf8_lossy(&raw);
        let Some((head, body)) = text.split_once("\r\n\r\n") else { continue };
        let head = head.to_ascii_lowercase();
        if head.contains("transfer-encoding: chunked") {
            if body.ends_with("0\r\n\r\n") {
                break dechunk(body);
            }
            continue;
        }
        let length = head
            .lines()
            .find_map(|line| line.strip_prefix("content-length:"))
            .and_then(|value| value.trim().parse::<usize>().ok())
            .unwrap_or(0);
        if body.len() >= length {
            break body.to_owned();
        }
    };
    let reply: Value = serde_json::from_str(&payload).map_err(|e| format!("{e}: {payload}"))?;
    let value = reply["value"].clone();
    if value.get("error").is_some() {
        return Err(value.to_string());
    }
    Ok(value)
}

/// A chunked body, joined.
fn dechunk(mut body: &str) -> String {
    let mut joined = String::new();
    while let Some((size, rest)) = body.split_once("\r\n") {
        let Ok(size) = usize::from_str_radix(size.trim(), 16) else { break };
        if size == 0 || rest.len() < size {
            break;
        }
        joined.push_str(&rest[..size]);
        body = rest[size..].trim_start_matches("\r\n");
    }
    joined
}
