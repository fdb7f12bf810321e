//! `toolwire inbox` over HTTP, as an attacker would try it: tokens, cookies, CSRF, Host and
//! Origin, bad answers, two answers to one call; and what an answer does (runs the call
//! once, settles a decline, records who answered), `--notify`, and `serve --inbox`.
//! The same page in a real browser: `inbox_browser.rs`.

use std::io::{Read, Write};
use std::net::TcpListener;
use std::time::Duration;

use serde_json::{Value, json};

use crate::common::inbox::{Inbox, deploy_manifest, journal_of, runs, waiting_call};
use crate::common::{stderr, stdout, toolwire};

fn answer(request_id: &str, action: &str) -> String {
    json!({"request_id": request_id, "action": action}).to_string()
}

#[test]
fn the_token_is_exchanged_for_a_strict_http_only_cookie_and_nothing_else_gets_in() {
    let tools = deploy_manifest();
    let inbox = Inbox::start(&tools, &[]);

    let wrong = inbox.send("GET", "/?token=tw_not-the-token", &[], "");
    assert_eq!(wrong.status, 401, "{}", wrong.head);
    assert!(wrong.header("set-cookie").is_none());
    for path in ["/", "/history", "/api/waiting", "/api/history", "/api/events"] {
        let anonymous = inbox.send("GET", path, &[], "");
        assert_eq!(anonymous.status, 401, "{path}: {}", anonymous.head);
        let forged_cookie = format!("toolwire_inbox_{}=00ff", inbox.port);
        let forged = inbox.send("GET", path, &[("Cookie", &forged_cookie)], "");
        assert_eq!(forged.status, 401, "{path}: {}", forged.head);
        let bearer = inbox.api("GET", path, "tw_guess", "");
        assert_eq!(bearer.status, 401, "{path}: {}", bearer.head);
    }

    let login = inbox.send("GET", &format!("/?token={}", inbox.token), &[], "");
    assert_eq!(login.status, 303);
    assert_eq!(login.header("location").as_deref(), Some("/"), "the token leaves the address");
    let cookie = login.header("set-cookie").expect("a cookie");
    assert!(cookie.contains("HttpOnly") && cookie.contains("SameSite=Strict"), "{cookie}");
    let session = cookie.split(';').next().expect("a session");
    // Named for the port: browsers send a host's cookies to all its ports.
    assert!(session.starts_with(&format!("toolwire_inbox_{}=", inbox.port)), "{session}");
    let page = inbox.send("GET", "/", &[("Cookie", session)], "");
    assert_eq!(page.status, 200, "{}", page.head);
    let csp = page.header("content-security-policy").expect("a CSP");
    assert!(csp.contains("script-src 'self'") && !csp.contains("unsafe-inline"), "{csp}");
    assert!(csp.contains("frame-ancestors 'none'"), "{csp}");
    assert_eq!(page.header("x-frame-options").as_deref(), Some("DENY"));
    // Every asset is the inbox's own, embedded in the binary: nothing from a CDN.
    for outside in ["src=\"http", "href=\"http", "src=\"//", "href=\"//"] {
        assert!(!page.body.contains(outside), "{outside} in {}", page.body);
    }
    assert!(!page.body.contains("<script>"), "no inline script: {}", page.body);
    for asset in ["/assets/inbox.js", "/assets/inbox.css"] {
        let served = inbox.send("GET", asset, &[], "");
        assert_eq!(served.status, 200, "{asset}");
        assert!(!served.body.contains("http://") && !served.body.contains("https://"), "{asset}");
    }
}

#[test]
fn dns_rebinding_and_other_sites_are_refused_and_nothing_runs() {
    let tools = deploy_manifest();
    waiting_call(&tools, "c1", r#"{"env": "production"}"#);
    let inbox = Inbox::start(&tools, &[]);
    let request = inbox.request_of("c1");
    let (cookie, csrf) = inbox.session();
    let body = answer(&request, "approve");
    let port = inbox.port;
    let other_port = format!("http://127.0.0.1:{}", port + 1);
    let cases: [(&str, &str, &str); 5] = [
        // A rebound name resolves to 127.0.0.1, but the browser sends its own Host.
        ("Host", "attacker.example", "Host"),
        ("Host", &format!("rebind.attacker.example:{port}"), "Host"),
        ("Origin", "http://attacker.example", "another site"),
        ("Origin", &other_port, "another site"),
        ("Origin", "null", "another site"),
    ];
    for (name, value, said) in cases {
        let headers = [
            ("Cookie", cookie.as_str()),
            ("X-CSRF-Token", csrf.as_str()),
            ("Content-Type", "application/json"),
            (name, value),
        ];
        let refused = inbox.send("POST", "/api/answer", &headers, &body);
        assert_eq!(refused.status, 403, "{name}: {value}: {}", refused.body);
        assert!(refused.body.contains(said), "{}", refused.body);
        let page = inbox.send("GET", "/", &[("Cookie", cookie.as_str()), (name, value)], "");
        assert_eq!(page.status, 403, "{name}: {value}");
    }
    // A request the browser marks as another site's: an answer is refused; a page only
    // reloads itself from the inbox's origin (a link from a chat), with nothing in it.
    let cross = [
        ("Cookie", cookie.as_str()),
        ("X-CSRF-Token", csrf.as_str()),
        ("Content-Type", "application/json"),
        ("Sec-Fetch-Site", "cross-site"),
    ];
    let refused = inbox.send("POST", "/api/answer", &cross, &body);
    assert_eq!(refused.status, 403, "{}", refused.body);
    for path in ["/", "/history"] {
        let page = inbox.send(
            "GET",
            path,
            &cross[..1].iter().chain(&cross[3..]).copied().collect::<Vec<_>>(),
            "",
        );
        assert_eq!(page.status, 200, "{path}");
        assert!(page.body.contains("http-equiv=\"refresh\""), "{}", page.body);
        assert!(!page.body.contains("csrf") && !page.body.contains("c1"), "{}", page.body);
    }
    let api = inbox.send(
        "GET",
        "/api/waiting",
        &[("Cookie", cookie.as_str()), ("Sec-Fetch-Site", "cross-site")],
        "",
    );
    assert_eq!(api.status, 403, "{}", api.body);
    assert!(runs(&tools).is_empty(), "nothing ran");
    assert_eq!(inbox.request_of("c1"), request, "the call still waits");
}

/// Browsers send a host's cookies to every port: two inboxes on one host shared one cookie
/// name, and each login logged the other out.
#[test]
fn regression_two_inboxes_on_one_host_shared_a_session_cookie() {
    let tools = deploy_manifest();
    let (first, second) = (Inbox::start(&tools, &[]), Inbox::start(&tools, &[]));
    let (one, _) = first.session();
    let (two, _) = second.session();
    let both = format!("{one}; {two}");
    for inbox in [&first, &second] {
        let page = inbox.send("GET", "/", &[("Cookie", both.as_str())], "");
        assert_eq!(page.status, 200, "{}", page.body);
    }
    // A second cookie of the name (planted by another page of the host) does not log out.
    let planted = format!("toolwire_inbox_{}=0000; {one}", first.port);
    assert_eq!(first.send("GET", "/", &[("Cookie", planted.as_str())], "").status, 200);
}

/// The answer ran in the request's own task: a client that left (a closed tab) dropped it,
/// and with it the call, answered but never run or cut off halfway.
#[test]
fn regression_a_closed_tab_cut_an_approved_call_off() {
    let tools = deploy_manifest();
    let slow = std::fs::read_to_string(&tools)
        .expect("reads")
        .replace("sh\", \"-c\", \"", "sh\", \"-c\", \"sleep 1; ");
    std::fs::write(&tools, slow).expect("writes");
    waiting_call(&tools, "c1", r#"{"env": "production"}"#);
    let inbox = Inbox::start(&tools, &[]);
    let request = inbox.request_of("c1");
    let body = answer(&request, "approve");
    let mut stream = std::net::TcpStream::connect(("127.0.0.1", inbox.port)).expect("connects");
    let head = format!(
        "POST /api/answer HTTP/1.1\r\nHost: 127.0.0.1:{}\r\nAuthorization: Bearer {}\r\n\
         Content-Type: application/json\r\nContent-Length: {}\r\n\r\n{body}",
        inbox.port,
        inbox.token,
        body.len()
    );
    stream.write_all(head.as_bytes()).expect("writes");
    std::thread::sleep(Duration::from_millis(300));
    drop(stream);
    let deadline = std::time::Instant::now() + Duration::from_secs(10);
    while runs(&tools).is_empty() {
        assert!(std::time::Instant::now() < deadline, "the approved call never ran");
        std::thread::sleep(Duration::from_millis(100));
    }
    assert_eq!(runs(&tools), ["production"]);
}

#[test]
fn a_change_without_the_session_s_csrf_token_is_refused_and_runs_nothing() {
    let tools = deploy_manifest();
    waiting_call(&tools, "c1", r#"{"env": "production"}"#);
    let inbox = Inbox::start(&tools, &[]);
    let request = inbox.request_of("c1");
    let (cookie, csrf) = inbox.session();
    let (_, other_csrf) = inbox.session();
    let body = answer(&request, "approve");
    for token in [None, Some(""), Some("0"), Some(other_csrf.as_str())] {
        let mut headers = vec![("Cookie", cookie.as_str()), ("Content-Type", "application/json")];
        if let Some(token) = token {
            headers.push(("X-CSRF-Token", token));
        }
        let refused = inbox.send("POST", "/api/answer", &headers, &body);
        assert_eq!(refused.status, 403, "{token:?}: {}", refused.body);
        assert!(refused.body.contains("CSRF"), "{}", refused.body);
    }
    assert!(runs(&tools).is_empty(), "nothing ran");

    let headers = [
        ("Cookie", cookie.as_str()),
        ("X-CSRF-Token", csrf.as_str()),
        ("Content-Type", "application/json"),
    ];
    let approved = inbox.send("POST", "/api/answer", &headers, &body);
    assert_eq!(approved.status, 200, "{}", approved.body);
    assert_eq!(approved.json()["result"]["text"], "deployed production");
    assert_eq!(runs(&tools), ["production"]);
}

#[test]
fn bad_answers_get_clear_errors_and_change_nothing() {
    let tools = deploy_manifest();
    waiting_call(&tools, "c1", r#"{"env": "production"}"#);
    let inbox = Inbox::start(&tools, &[]);
    let request = inbox.request_of("c1");
    let token = inbox.token.clone();
    let nested = format!("{}{}", "[".repeat(100_000), "]".repeat(100_000));
    let deep = format!(r#"{{"request_id": "{request}", "action": "submit", "data": {nested}}}"#);
    let cases: Vec<(String, u16, &str)> = vec![
        ("{not json".to_owned(), 400, "invalid answer"),
        (json!({"request_id": request, "action": 5}).to_string(), 400, "invalid answer"),
        (json!({"request_id": request, "action": "yes"}).to_string(), 400, "unknown variant"),
        (
            json!({"request_id": request, "action": "approve", "by": "ceo"}).to_string(),
            400,
            "unknown field",
        ),
        (json!({"request_id": 7, "action": "approve"}).to_string(), 400, "invalid answer"),
        (deep, 400, "recursion limit"),
        (
            json!({"request_id": request, "action": "submit", "data": [1]}).to_string(),
            400,
            "JSON object",
        ),
        (json!({"request_id": request, "action": "submit"}).to_string(), 400, "the form's fields"),
        (
            json!({"request_id": request, "action": "decline", "reason": "x".repeat(5000)})
                .to_string(),
            400,
            "reason",
        ),
        (answer("apr-forged-0000", "approve"), 404, "no call waits"),
        (answer(&request.replace("apr-", "apr-0"), "approve"), 404, "no call waits"),
    ];
    for (n, (body, status, said)) in cases.into_iter().enumerate() {
        let reply = inbox.api("POST", "/api/answer", &token, &body);
        let shown = format!("case {n}: {}", body.chars().take(80).collect::<String>());
        assert_eq!(reply.status, status, "{shown}: {}", reply.body);
        assert!(reply.body.contains(said), "{shown}: {}", reply.body);
    }
    let huge = format!(r#"{{"request_id": "{}", "action": "approve"}}"#, "x".repeat(3 << 20));
    assert_eq!(inbox.api("POST", "/api/answer", &token, &huge).status, 413);
    assert!(runs(&tools).is_empty(), "nothing ran");
    assert_eq!(inbox.request_of("c1"), request, "the call still waits");
    assert!(inbox.stderr().lines().all(|l| !l.contains("panicked")), "{}", inbox.stderr());
}

#[test]
fn an_approval_runs_the_call_once_and_the_journal_records_who_gave_it() {
    let tools = deploy_manifest();
    let users = tools.with_file_name("approvers.toml");
    let added =
        toolwire().args(["users", "add", "ana", "--file"]).arg(&users).output().expect("runs");
    assert!(added.status.success(), "{}", stderr(&added));
    let ana = stdout(&added).trim().to_owned();
    waiting_call(&tools, "c1", r#"{"env": "production"}"#);
    waiting_call(&tools, "c2", r#"{"env": "staging"}"#);
    let users_flag = users.display().to_string();
    let inbox = Inbox::start(&tools, &["--users", &users_flag]);
    let (first, second) = (inbox.request_of("c1"), inbox.request_of("c2"));
    let listed: Vec<Value> = inbox.waiting().iter().map(|item| item["call_id"].clone()).collect();
    assert_eq!(listed, ["c2", "c1"], "newest first");

    // Two answers at once, as from two tabs: one runs the call, the other is refused.
    let answers: Vec<u16> = std::thread::scope(|scope| {
        let sent: Vec<_> = (0..2)
            .map(|_| {
                scope.spawn(|| {
                    inbox.api("POST", "/api/answer", &ana, &answer(&first, "approve")).status
                })
            })
            .collect();
        sent.into_iter().map(|s| s.join().expect("answers")).collect()
    });
    assert!(answers.contains(&200), "{answers:?}");
    assert!(answers.iter().any(|s| *s == 409 || *s == 404), "{answers:?}");
    assert_eq!(runs(&tools), ["production"], "ran once");
    let again = inbox.api("POST", "/api/answer", &ana, &answer(&first, "decline"));
    assert_eq!(again.status, 409, "{}", again.body);
    assert!(again.body.contains("already accepted by user ana"), "{}", again.body);

    // The operator's own token answers as the local user.
    let declined = inbox.api(
        "POST",
        "/api/answer",
        &inbox.token,
        &json!({"request_id": second, "action": "decline", "reason": "not on a Friday"})
            .to_string(),
    );
    assert_eq!(declined.status, 200, "{}", declined.body);
    assert!(declined.json()["message"].as_str().unwrap_or_default().contains("did not run"));
    assert_eq!(runs(&tools), ["production"], "a decline runs nothing");

    let log = toolwire()
        .arg("--journal")
        .arg(journal_of(&tools))
        .args(["log", "--json"])
        .output()
        .expect("runs");
    let receipts: Vec<Value> =
        stdout(&log).lines().map(|line| serde_json::from_str(line).expect("JSON")).collect();
    let settled = |call: &str| {
        receipts
            .iter()
            .rev()
            .find(|r| r["call_id"] == call)
            .unwrap_or_else(|| panic!("no receipt of {call}"))
            .clone()
    };
    let approved = settled("c1");
    assert_eq!(approved["policy"]["outcome"], "approved", "{approved}");
    assert_eq!(approved["policy"]["answered_by"], json!({"kind": "user", "name": "ana"}));
    assert!(approved["policy"]["answered_at"].is_string(), "{approved}");
    let refused = settled("c2");
    assert_eq!(refused["policy"]["outcome"], "refused", "{refused}");
    assert_eq!(refused["policy"]["answered_by"]["name"], "operator", "{refused}");
    assert!(refused["result"]["text"].as_str().unwrap_or_default().contains("not on a Friday"));

    // The history, filtered, with who answered.
    let history = inbox.api("GET", "/api/history?outcome=approved", &ana, "").json();
    let found = history["receipts"].as_array().cloned().unwrap_or_default();
    assert_eq!(found.len(), 1, "{history}");
    assert_eq!(found[0]["policy"]["answered_by"]["name"], "ana");
    let none = inbox.api("GET", "/api/history?tool=other", &ana, "").json();
    assert_eq!(none["receipts"], json!([]), "{none}");
    let pending = inbox.api("GET", "/api/history?outcome=pending&tool=deploy", &ana, "").json();
    let pending = pending["receipts"].as_array().cloned().unwrap_or_default();
    assert!(pending.len() == 2 && pending.iter().all(|r| r["failure"] == "pending"), "{pending:?}");

    // The settled call replays its recorded result, and never runs again.
    let replay = toolwire()
        .arg("--journal")
        .arg(journal_of(&tools))
        .arg("-m")
        .arg(&tools)
        .args(["call", "deploy", "--args", r#"{"env": "production"}"#, "--call-id", "c1"])
        .output()
        .expect("runs");
    assert_eq!(stdout(&replay).trim(), "deployed production");
    assert_eq!(runs(&tools), ["production"]);
}

/// A one-shot HTTP receiver: the body of the first POST it gets.
fn receiver() -> (String, std::sync::mpsc::Receiver<String>) {
    let listener = TcpListener::bind("127.0.0.1:0").expect("binds");
    let url = format!("http://{}/hook", listener.local_addr().expect("bound"));
    let (send, receive) = std::sync::mpsc::channel();
    std::thread::spawn(move || {
        let Ok((mut stream, _)) = listener.accept() else { return };
        let _ = stream.set_read_timeout(Some(Duration::from_secs(10)));
        let mut raw = Vec::new();
        let mut buffer = [0u8; 4096];
        while let Ok(n) = stream.read(&mut buffer) {
            if n == 0 {
                break;
            }
            raw.extend_from_slice(&buffer[..n]);
            let text = String::from_utf8_lossy(&raw);
            let Some((head, body)) = text.split_once("\r\n\r\n") else { continue };
            let length = head
                .lines()
                .find_map(|l| {
                    l.to_ascii_lowercase()
                        .strip_prefix("content-length:")
                        .map(|v| v.trim().parse::<usize>().unwrap_or(0))
                })
                .unwrap_or(0);
            if body.len() >= length {
                let _ = stream.write_all(b"HTTP/1.1 204 No Content\r\nConnection: close\r\n\r\n");
                let _ = send.send(body.to_owned());
                break;
            }
        }
    });
    (url, receive)
}

#[test]
fn notify_posts_what_starts_waiting_without_its_arguments() {
    let tools = deploy_manifest();
    waiting_call(&tools, "before", r#"{"env": "old"}"#);
    let (url, received) = receiver();
    let inbox = Inbox::start(&tools, &["--notify", &url]);
    inbox.request_of("before");
    waiting_call(&tools, "c9", r#"{"env": "production", "note": "secret-s3cr3t"}"#);
    let body = received
        .recv_timeout(Duration::from_secs(15))
        .unwrap_or_else(|_| panic!("no notification; the inbox said {}", inbox.stderr()));
    let message: Value = serde_json::from_str(&body).expect("JSON");
    assert_eq!(message["event"], "waiting");
    assert_eq!(message["call_id"], "c9", "only what started waiting since: {message}");
    assert_eq!(message["tool"], "deploy");
    assert_eq!(message["inbox"], format!("http://127.0.0.1:{}", inbox.port));
    assert!(!body.contains("secret-s3cr3t") && !body.contains("production"), "{body}");
}

#[test]
fn serve_inbox_answers_an_mcp_call_and_needs_a_journal() {
    let tools = deploy_manifest();
    let no_journal = toolwire()
        .arg("-m")
        .arg(&tools)
        .args(["serve", "--http", "127.0.0.1:1", "--inbox", "127.0.0.1:0"])
        .output()
        .expect("runs");
    assert_eq!(no_journal.status.code(), Some(2), "{}", stderr(&no_journal));
    assert!(stderr(&no_journal).contains("--inbox needs --journal"), "{}", stderr(&no_journal));

    let (mcp, port) = (crate::common::http::free_port(), crate::common::http::free_port());
    let mut command = std::process::Command::new(crate::common::binary());
    command
        .arg("--journal")
        .arg(journal_of(&tools))
        .arg("-m")
        .arg(&tools)
        .args(["serve", "--http", &format!("127.0.0.1:{mcp}")])
        .args(["--inbox", &format!("127.0.0.1:{port}")]);
    let inbox = Inbox::spawn(command, port, "serve --inbox");
    let deadline = std::time::Instant::now() + Duration::from_secs(30);
    while std::net::TcpStream::connect(("127.0.0.1", mcp)).is_err() {
        assert!(std::time::Instant::now() < deadline, "serve did not listen");
        std::thread::sleep(Duration::from_millis(50));
    }
    // The call waits for its client's answer, and for the host's, in the journal.
    let first = crate::common::http::call_tool(mcp, "deploy", json!({"env": "production"}), None);
    let deadline = std::time::Instant::now() + Duration::from_secs(10);
    let item = loop {
        if let Some(item) = inbox.waiting().into_iter().find(|i| i["tool"]["name"] == "deploy") {
            break item;
        }
        assert!(std::time::Instant::now() < deadline, "not listed; the server said {first}");
        std::thread::sleep(Duration::from_millis(100));
    };
    assert_eq!(item["arguments"], json!({"env": "production"}), "{item}");
    assert!(matches!(item["kind"].as_str(), Some("mcp_call" | "task")), "{item}");
    let request = item["request_id"].as_str().expect("an id");
    let answered = inbox.api("POST", "/api/answer", &inbox.token, &answer(request, "approve"));
    assert_eq!(answered.status, 200, "{}", answered.body);
    assert_eq!(answered.json()["status"], "answered", "{}", answered.body);
    let twice = inbox.api("POST", "/api/answer", &inbox.token, &answer(request, "approve"));
    assert_eq!(twice.status, 409, "{}", twice.body);
    assert!(runs(&tools).is_empty(), "the client's retry runs it, not the inbox");
    let state = first["result"]["requestState"].as_str().expect("a state");
    let retry = crate::common::http::call_tool(
        mcp,
        "deploy",
        json!({"env": "production"}),
        Some((state, json!({}))),
    );
    assert_eq!(retry["result"]["content"][0]["text"], "deployed production", "{retry}");
    assert_eq!(runs(&tools), ["production"]);
    // The server's receipt of the call names the inbox's user as its approver.
    let log = toolwire().arg("--journal").arg(journal_of(&tools)).args(["log", "--json"]).output();
    let log = stdout(&log.expect("runs"));
    let approved = log
        .lines()
        .filter_map(|line| serde_json::from_str::<Value>(line).ok())
        .find(|receipt| receipt["policy"]["outcome"] == "approved")
        .unwrap_or_else(|| panic!("no approved receipt: {log}"));
    assert_eq!(approved["policy"]["answered_by"]["name"], "operator", "{approved}");
}

#[test]
fn approvals_answer_records_the_local_user_as_the_approver() {
    let tools = deploy_manifest();
    waiting_call(&tools, "c1", r#"{"env": "staging"}"#);
    let at = |args: &[&str]| {
        toolwire()
            .env("USER", "grace")
            .arg("--journal")
            .arg(journal_of(&tools))
            .arg("-m")
            .arg(&tools)
            .args(args)
            .output()
            .expect("runs")
    };
    let answered = at(&["approvals", "answer", "c1"]);
    assert!(answered.status.success(), "{}", stderr(&answered));
    let resumed = at(&["approvals", "resume", "c1"]);
    assert_eq!(stdout(&resumed).trim(), "deployed staging", "{}", stderr(&resumed));
    let log = stdout(&at(&["log", "--json"]));
    let last: Value = serde_json::from_str(log.lines().last().unwrap_or("null")).expect("JSON");
    assert_eq!(last["policy"]["answered_by"], json!({"kind": "user", "name": "grace"}), "{last}");
}

#[test]
fn an_answered_agent_run_is_continued_by_the_inbox_with_the_model_it_was_made_with() {
    use crate::common::model::{calling, mock_model, saying};
    let tools = deploy_manifest();
    let mut turn =
        vec![json!({"choices": [{"index": 0, "delta": {"content": "Shipping to staging now."}}]})];
    turn.extend(calling("call_9", "deploy", r#"{"env": "staging"}"#));
    let (url, model) = mock_model(vec![turn, saying("shipped it")]);
    let paused = toolwire()
        .arg("--journal")
        .arg(journal_of(&tools))
        .arg("-m")
        .arg(&tools)
        .args(["run", "ship it", "--model", "openai:test-model", "--base-url", &url])
        .output()
        .expect("runs");
    assert_eq!(paused.status.code(), Some(3), "{}", stderr(&paused));

    let inbox = Inbox::start(&tools, &[]);
    let request = inbox.request_of("call_9");
    let item = inbox.waiting().into_iter().find(|i| i["call_id"] == "call_9").expect("listed");
    assert_eq!(item["kind"], "run", "{item}");
    assert_eq!(item["arguments"], json!({"env": "staging"}), "{item}");
    assert_eq!(item["model_text"], "Shipping to staging now.", "{item}");
    assert!(item["asked_by"].as_str().unwrap_or_default().contains("openai:test-model"), "{item}");

    let answered = inbox.api("POST", "/api/answer", &inbox.token, &answer(&request, "approve"));
    assert_eq!(answered.status, 200, "{}", answered.body);
    assert_eq!(answered.json()["status"], "resuming", "{}", answered.body);
    let seen = model.join().expect("the model server");
    assert_eq!(seen.len(), 2, "the run went back to the model");
    assert!(seen[1].body.contains("deployed staging"), "{}", seen[1].body);
    assert_eq!(runs(&tools), ["staging"], "ran once");
    let deadline = std::time::Instant::now() + Duration::from_secs(10);
    while !inbox.stderr().contains("continued run") {
        assert!(std::time::Instant::now() < deadline, "{}", inbox.stderr());
        std::thread::sleep(Duration::from_millis(100));
    }
    let listed = toolwire()
        .arg("--journal")
        .arg(journal_of(&tools))
        .args(["approvals", "list"])
        .output()
        .expect("runs");
    assert_eq!(stdout(&listed), "", "nothing waits any more");
}

/// A run's card looked its arguments up by the model's call id: of two calls given one id,
/// both cards showed the first call's arguments, while each answer is bound to its own call.
#[test]
fn regression_a_run_s_two_calls_with_one_id_showed_one_call_s_arguments() {
    use crate::common::model::mock_model;
    let tools = deploy_manifest();
    let call = |index: u64, env: &str| {
        let arguments = json!({"env": env}).to_string();
        json!({"choices": [{"index": 0, "delta": {"tool_calls": [{"index": index, "id": "dup",
            "type": "function", "function": {"name": "deploy", "arguments": arguments}}]}}]})
    };
    let stop = json!({"choices": [{"index": 0, "delta": {}, "finish_reason": "tool_calls"}]});
    let (url, model) = mock_model(vec![vec![call(0, "staging"), call(1, "production"), stop]]);
    let paused = toolwire()
        .arg("--journal")
        .arg(journal_of(&tools))
        .arg("-m")
        .arg(&tools)
        .args(["run", "ship it", "--model", "openai:test-model", "--base-url", &url])
        .output()
        .expect("runs");
    assert_eq!(paused.status.code(), Some(3), "{}", stderr(&paused));
    drop(model.join());
    let inbox = Inbox::start(&tools, &[]);
    inbox.request_of("dup");
    let mut shown: Vec<Value> = inbox
        .waiting()
        .into_iter()
        .filter(|item| item["call_id"] == "dup")
        .map(|item| item["arguments"]["env"].clone())
        .collect();
    shown.sort_by_key(ToString::to_string);
    assert_eq!(shown, [json!("production"), json!("staging")], "each card its own call's");
}
