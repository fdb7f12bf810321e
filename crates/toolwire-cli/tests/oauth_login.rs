//! `toolwire mcp login`, `status`, `logout`, and calls through a stored login, against a
//! real authorization server on loopback (tests/common/oauth.rs), with no browser: the test
//! follows the printed authorization address itself, as a browser would. Then the same
//! login against servers that misbehave as an attacker's would: each is refused, and no
//! token is asked for or stored.

use std::io::{BufRead, BufReader};
use std::path::{Path, PathBuf};
use std::process::{Child, Stdio};
use std::time::{Duration, Instant};

use serde_json::json;
use toolwire::{Registry, Tool, ToolResult};

use crate::common::http::{Served, call_tool};
use crate::common::oauth::{Mode, OAuthServers};
use crate::common::otlp::Receiver;
use crate::common::{binary, scratch, stderr, stdout};

/// The protected server's one tool.
fn registry() -> Registry {
    let whoami = Tool::define("whoami")
        .parameters(json!({"type": "object", "properties": {}}))
        .execute_sync(|_, _| {
            ToolResult::ok(json!({"who": "secret agent"}), "hello from behind the login")
        });
    Registry::builder().register(whoami.build().expect("tool")).seal().expect("registry")
}

/// A manifest naming the server at `url` as `secure`, and the folder standing for the
/// user's config (`XDG_CONFIG_HOME`).
fn setup(url: &str) -> (PathBuf, PathBuf) {
    let dir = scratch("oauth");
    let manifest = dir.join("tools.toml");
    let text = format!("[mcp_servers.secure]\nurl = \"{url}\"\naccept_new = true\n");
    std::fs::write(&manifest, text).expect("manifest");
    let config = dir.join("config");
    std::fs::create_dir_all(&config).expect("config");
    (manifest, config)
}

fn cli(manifest: &Path, config: &Path) -> std::process::Command {
    let mut command = std::process::Command::new(binary());
    command
        .env("XDG_CONFIG_HOME", config)
        .env("XDG_DATA_HOME", config.join("data"))
        .env_remove("DISPLAY")
        .env_remove("WAYLAND_DISPLAY")
        .arg("-m")
        .arg(manifest);
    command
}

/// Runs `toolwire mcp login secure --no-browser --timeout 5s`, visits the address it prints as a browser
/// would (the authorization server redirects at once; the redirect goes to toolwire's
/// loopback listener), and returns its output once it ends.
fn login(manifest: &Path, config: &Path) -> std::process::Output {
    let mut child: Child = cli(manifest, config)
        .args(["mcp", "login", "secure", "--no-browser", "--timeout", "5s"])
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("login starts");
    let mut lines = BufReader::new(child.stderr.take().expect("stderr"));
    let mut printed = String::new();
    let deadline = Instant::now() + Duration::from_secs(30);
    let address = loop {
        let mut line = String::new();
        if lines.read_line(&mut line).expect("stderr") == 0 || Instant::now() > deadline {
            break None;
        }
        printed.push_str(&line);
        if let Some(url) = line.trim().strip_prefix("http") {
            break Some(format!("http{url}"));
        }
    };
    if let Some(address) = address {
        visit(&address);
    }
    let mut rest = String::new();
    let _ = std::io::Read::read_to_string(&mut lines, &mut rest);
    printed.push_str(&rest);
    let mut output = child.wait_with_output().expect("login ends");
    output.stderr = printed.into_bytes();
    output
}

/// What a browser does with the authorization address: follows the redirects, to the
/// loopback listener's page.
fn visit(address: &str) {
    let runtime = tokio::runtime::Builder::new_current_thread().enable_all().build().expect("rt");
    runtime.block_on(async {
        toolwire::install_tls_provider();
        let client = reqwest::Client::builder().build().expect("client");
        let _ = client.get(address).timeout(Duration::from_secs(20)).send().await;
    });
}

/// Every file under `dir` but the login files themselves, as text.
fn written_besides_logins(dir: &Path) -> String {
    let mut text = String::new();
    let mut stack = vec![dir.to_path_buf()];
    while let Some(dir) = stack.pop() {
        for entry in std::fs::read_dir(&dir).into_iter().flatten().flatten() {
            let path = entry.path();
            if path.is_dir() {
                if !path.ends_with("logins") {
                    stack.push(path);
                }
            } else {
                text.push_str(&String::from_utf8_lossy(&std::fs::read(&path).unwrap_or_default()));
            }
        }
    }
    text
}

#[test]
fn a_login_through_toolwire_mcp_login_is_stored_privately_used_and_forgotten() {
    let servers = OAuthServers::start(Mode::Honest, registry());
    let (manifest, config) = setup(&servers.url);

    // Before a login, the server's tools cannot be imported; the message says what to run.
    let before = cli(&manifest, &config).args(["call", "secure__whoami"]).output().expect("runs");
    assert!(!before.status.success());
    assert!(stderr(&before).contains("toolwire mcp login secure"), "{}", stderr(&before));

    let output = login(&manifest, &config);
    assert!(output.status.success(), "login failed: {}{}", stderr(&output), stdout(&output));
    assert!(stdout(&output).contains("logged in to secure"), "{}", stdout(&output));
    let authorization = servers.seen(|seen| seen.authorizations[0].clone());
    assert_eq!(authorization.get("code_challenge_method").map(String::as_str), Some("S256"));
    assert_eq!(authorization.get("resource"), Some(&servers.url));
    assert!(
        authorization.get("redirect_uri").is_some_and(|uri| uri.starts_with("http://127.0.0.1:"))
    );
    assert_eq!(servers.seen(|seen| seen.issued.len()), 1);

    // Kept in a file only the user can read, in a folder only the user can enter.
    let logins = config.join("toolwire").join("logins");
    let files: Vec<_> = std::fs::read_dir(&logins).expect("logins").flatten().collect();
    assert_eq!(files.len(), 1);
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        let mode = files[0].metadata().expect("meta").permissions().mode();
        assert_eq!(mode & 0o777, 0o600);
        assert_eq!(std::fs::metadata(&logins).expect("meta").permissions().mode() & 0o777, 0o700);
    }

    // The status shows the login, never the token.
    let status = cli(&manifest, &config).args(["mcp", "status"]).output().expect("runs");
    assert!(status.status.success());
    assert!(
        stdout(&status).contains("secure")
            && stdout(&status).contains("logged in as client toolwire-test-client"),
        "{}",
        stdout(&status)
    );
    let json = cli(&manifest, &config).args(["mcp", "status", "--json"]).output().expect("runs");
    let shown: serde_json::Value = serde_json::from_slice(&json.stdout).expect("json");
    assert_eq!(shown[0]["logged_in"], true);
    assert_eq!(shown[0]["refreshable"], true);

    // A call goes through with the stored token; journaled, and traced with the calls'
    // arguments and results captured.
    let mut receiver = Receiver::start();
    let call = cli(&manifest, &config)
        .args(["--otlp", &receiver.url, "--journal"])
        .arg(config.join("journal.db"))
        .args(["call", "secure__whoami"])
        .env("OTEL_INSTRUMENTATION_GENAI_CAPTURE_MESSAGE_CONTENT", "true")
        .env("RUST_LOG", "trace")
        .output()
        .expect("runs");
    assert!(call.status.success(), "{}", stderr(&call));
    assert!(stdout(&call).contains("hello from behind the login"), "{}", stdout(&call));
    assert!(servers.seen(|seen| seen.mcp_requests.iter().any(|valid| *valid)));
    let traced = receiver.until(Duration::from_secs(10), |r| {
        r.spans.iter().any(|s| s.name == "execute_tool secure__whoami")
    });
    assert!(traced, "the call's span was exported: {:#?}", receiver.received);

    // The token is in nothing toolwire printed or wrote, but the login file.
    let token = servers.seen(|seen| seen.issued[0].clone());
    for (what, text) in [
        ("login", format!("{}{}", stdout(&output), stderr(&output))),
        ("status", format!("{}{}{}", stdout(&status), stderr(&status), stdout(&json))),
        ("call", format!("{}{}", stdout(&call), stderr(&call))),
        ("trace", format!("{:?}", receiver.received)),
        ("files", written_besides_logins(&config)),
    ] {
        assert!(!text.contains(&token), "the token is in the {what} output");
        assert!(!text.contains("tw-refresh-"), "a refresh token is in the {what} output");
    }

    let out = cli(&manifest, &config).args(["mcp", "logout", "secure"]).output().expect("runs");
    assert!(stdout(&out).contains("logged out of secure"), "{}", stdout(&out));
    assert_eq!(std::fs::read_dir(&logins).expect("logins").count(), 0);
    let again = cli(&manifest, &config).args(["mcp", "logout", "secure"]).output().expect("runs");
    assert!(stdout(&again).contains("no login was stored"), "{}", stdout(&again));
    let status = cli(&manifest, &config).args(["mcp", "status"]).output().expect("runs");
    assert!(stdout(&status).contains("not logged in"), "{}", stdout(&status));
}

/// How many refresh-token grants `servers` received.
fn refreshes(servers: &OAuthServers) -> usize {
    servers.seen(|seen| {
        let grant = |form: &&std::collections::HashMap<String, String>| {
            form.get("grant_type").map(String::as_str) == Some("refresh_token")
        };
        seen.token_requests.iter().filter(grant).count()
    })
}

#[test]
fn a_stored_login_is_renewed_before_it_expires() {
    let servers = OAuthServers::start(Mode::ShortLived, registry());
    let (manifest, config) = setup(&servers.url);
    let output = login(&manifest, &config);
    assert!(output.status.success(), "{}", stderr(&output));
    assert_eq!(refreshes(&servers), 0);

    // The access token lasts a second: the next call renews it before sending, unattended,
    // and the server never sees the expired one.
    std::thread::sleep(Duration::from_millis(1_500));
    let call = cli(&manifest, &config).args(["call", "secure__whoami"]).output().expect("runs");
    assert!(call.status.success(), "{}", stderr(&call));
    assert!(refreshes(&servers) >= 1, "the expired token was renewed");
    assert_eq!(servers.seen(|seen| seen.refused_tokens), 0, "no stale token was sent");
    let status = cli(&manifest, &config).args(["mcp", "status", "--json"]).output().expect("runs");
    let shown: serde_json::Value = serde_json::from_slice(&status.stdout).expect("json");
    assert_eq!(shown[0]["logged_in"], true, "the renewed login was stored");
}

#[test]
fn a_token_the_server_refuses_is_renewed_once_and_the_request_sent_again() {
    let servers = OAuthServers::start(Mode::Honest, registry());
    let (manifest, config) = setup(&servers.url);
    assert!(login(&manifest, &config).status.success());
    // The server stops taking every token it issued: the first request is refused (401),
    // the login renewed with its refresh token, and the request sent again.
    servers.revoke_all();
    let call = cli(&manifest, &config).args(["call", "secure__whoami"]).output().expect("runs");
    assert!(call.status.success(), "{}", stderr(&call));
    assert!(stdout(&call).contains("hello from behind the login"));
    assert_eq!(refreshes(&servers), 1, "renewed once");
    assert!(servers.seen(|seen| seen.refused_tokens) >= 1, "a refused request came first");
}

#[test]
fn a_gateway_renews_a_login_the_server_stops_taking_mid_session() {
    let servers = OAuthServers::start(Mode::Honest, registry());
    let (manifest, config) = setup(&servers.url);
    assert!(login(&manifest, &config).status.success());
    let env = [("XDG_CONFIG_HOME", config.as_path())];
    let served = Served::start_with_env(&manifest, &[], &[], &env);
    let first = call_tool(served.port, "secure__whoami", json!({}), None);
    assert!(first.to_string().contains("hello from behind the login"), "{first}");
    assert_eq!(refreshes(&servers), 0);

    // Connected, the gateway's calls go straight to the server with the token; once the
    // server stops taking it, a call is refused (401), the login renewed, the call sent again.
    servers.revoke_all();
    let second = call_tool(served.port, "secure__whoami", json!({}), None);
    assert!(second.to_string().contains("hello from behind the login"), "{second}");
    assert_eq!(refreshes(&servers), 1, "renewed once");
    assert!(servers.seen(|seen| seen.refused_tokens) >= 1, "the old token was refused first");
    let third = call_tool(served.port, "secure__whoami", json!({}), None);
    assert!(third.to_string().contains("hello from behind the login"), "{third}");
    assert_eq!(refreshes(&servers), 1, "the renewed token is kept");
}

#[test]
fn regression_a_stored_login_was_sent_after_the_server_named_another_authorization_server() {
    let servers = OAuthServers::start(Mode::Honest, registry());
    let (manifest, config) = setup(&servers.url);
    assert!(login(&manifest, &config).status.success());
    let tokens = servers.seen(|seen| seen.token_requests.len());
    // The server now names an authorization server of another issuer: the stored refresh
    // token must not go there, nor the access token to the server; a new login is asked for.
    servers.set_mode(Mode::OtherIssuer);
    let call = cli(&manifest, &config).args(["call", "secure__whoami"]).output().expect("runs");
    assert!(!call.status.success(), "{}", stdout(&call));
    assert!(stderr(&call).contains("toolwire mcp login secure"), "{}", stderr(&call));
    assert_eq!(servers.seen(|seen| seen.token_requests.len()), tokens, "nothing was renewed");
    assert_eq!(servers.seen(|seen| seen.refused_tokens), 0, "the old token was not sent");
}

/// Logs in against a server in `mode`, and checks that the login failed saying `why`, that
/// nothing was stored, and that no token was asked for.
fn refused(mode: Mode, why: &str) {
    let servers = OAuthServers::start(mode, registry());
    let (manifest, config) = setup(&servers.url);
    let output = login(&manifest, &config);
    assert!(!output.status.success(), "{mode:?}: the login was not refused");
    assert!(stderr(&output).contains(why), "{mode:?}: {}", stderr(&output));
    assert_eq!(
        servers.seen(|seen| seen.token_requests.len()),
        0,
        "{mode:?}: a token was asked for"
    );
    assert_eq!(servers.seen(|seen| seen.issued.len()), 0);
    let logins = config.join("toolwire").join("logins");
    assert_eq!(std::fs::read_dir(&logins).map(Iterator::count).unwrap_or(0), 0, "{mode:?}");
}

#[test]
fn a_redirect_with_a_wrong_state_is_refused_and_no_token_is_asked_for() {
    // toolwire's listener answers a redirect of another state 400 and waits on for the
    // login's own, which never comes: the login lapses.
    refused(Mode::WrongState, "no redirect came back within 5s");
}

#[test]
fn a_redirect_with_a_wrong_iss_is_refused_and_no_token_is_asked_for() {
    refused(Mode::WrongIss, "https://evil.example.com");
}

#[test]
fn a_token_endpoint_on_another_host_is_refused_before_anything_is_sent() {
    refused(Mode::TokenElsewhere, "on another host, 127.0.0.2");
    // Not even the user's consent is asked for.
    let servers = OAuthServers::start(Mode::TokenElsewhere, registry());
    let (manifest, config) = setup(&servers.url);
    let _ = login(&manifest, &config);
    assert_eq!(servers.seen(|seen| seen.authorizations.len()), 0);
}

#[test]
fn an_authorization_server_on_plain_http_off_loopback_is_refused() {
    refused(Mode::PlainHttp, "plain http off loopback");
}

#[test]
fn a_resource_that_does_not_match_is_refused() {
    refused(Mode::ResourceMismatch, "resource mismatch");
}

#[test]
fn a_server_on_plain_http_off_loopback_is_not_sent_a_login() {
    let (manifest, config) = setup("http://mcp.attacker.example/mcp");
    let output = cli(&manifest, &config)
        .args(["mcp", "login", "secure", "--no-browser"])
        .output()
        .expect("runs");
    assert!(!output.status.success());
    assert!(stderr(&output).contains("plain http off loopback"), "{}", stderr(&output));
}
