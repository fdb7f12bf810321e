//! The inbox in a real browser (headless Chromium over WebDriver): the list, live arrival,
//! an approval that runs once from two tabs, a decline, a form, the history, markup in
//! arguments, and a page of another site that tries to answer.
//!
//! Set `TOOLWIRE_SCREENSHOT=FILE.png` to keep a screenshot of two waiting calls (the
//! README's).

use std::io::{Read, Write};
use std::net::TcpListener;
use std::time::Duration;

use serde_json::{Value, json};

use crate::common::browser::Browser;
use crate::common::inbox::{Inbox, deploy_manifest, journal_of, runs, waiting_call};
use crate::common::{manifest, stderr, toolwire};

/// The selector of the item of `call_id`.
fn item(call_id: &str) -> String {
    format!("li.item[data-call-id=\"{call_id}\"]")
}

/// Whether the page lists the item of `call_id`.
fn listed(call_id: &str) -> String {
    format!("return document.querySelector('{}') !== null;", item(call_id).replace('\'', "\\'"))
}

#[test]
fn the_page_lists_waiting_calls_approves_once_from_two_tabs_and_shows_the_history() {
    let tools = deploy_manifest();
    waiting_call(&tools, "c1", r#"{"env": "production", "note": "release 4.2"}"#);
    std::thread::sleep(Duration::from_millis(20));
    waiting_call(&tools, "c2", r#"{"env": "staging"}"#);
    let inbox = Inbox::start(&tools, &[]);
    let browser = Browser::start();
    browser.go(&inbox.login_url());

    // The token went for a cookie that scripts cannot read and other sites never send.
    let url = browser.js("return location.href;", &[]);
    assert_eq!(url, format!("http://127.0.0.1:{}/", inbox.port));
    let cookie = browser.cookie(&format!("toolwire_inbox_{}", inbox.port));
    assert_eq!(cookie["httpOnly"], true, "{cookie}");
    assert_eq!(cookie["sameSite"], "Strict", "{cookie}");
    assert_eq!(browser.js("return document.cookie;", &[]), "");

    let order = browser
        .js("return [...document.querySelectorAll('li.item')].map(li => li.dataset.callId);", &[]);
    assert_eq!(order, json!(["c2", "c1"]), "newest first");
    let first = item("c1");
    assert_eq!(browser.text(&format!("{first} h2")), "deploy", "the name, not the title");
    assert_eq!(browser.text(&format!("{first} .title")), "Deploy");
    assert_eq!(browser.text(&format!("{first} .badge.destructive")), "destructive");
    assert!(browser.text(&format!("{first} .description")).contains("Deploy the service"));
    let env = browser.text(&format!("{first} tr[data-field=env]"));
    assert!(env.contains("production") && env.contains("Where it goes"), "{env}");
    assert!(browser.text(&format!("{first} .meta")).contains("toolwire call"));
    assert!(browser.text(&format!("{first} .meta")).contains("expires"));
    if let Some(path) = std::env::var_os("TOOLWIRE_SCREENSHOT") {
        std::fs::write(path, browser.screenshot()).expect("writes the screenshot");
    }

    // A second tab, answering the same call at the same time, as a stale page would.
    let first_tab = browser.new_tab();
    browser.go(&format!("http://127.0.0.1:{}/", inbox.port));
    browser.find(&first);
    let request =
        browser.js(&format!("return document.querySelector('{first}').dataset.requestId;"), &[]);
    let second_tab = browser.switch_to(&first_tab);
    browser.click(&format!("{first} button.approve"));
    browser.wait_until(
        &format!("return document.querySelector('{first} .status')?.textContent.includes('deployed production');"),
        "the approval's result",
    );
    browser.switch_to(&second_tab);
    let late = browser.js(
        "const csrf = document.querySelector('meta[name=csrf-token]').content;
         return fetch('/api/answer', {method: 'POST', headers: {'Content-Type': 'application/json',
           'X-CSRF-Token': csrf}, body: JSON.stringify({request_id: arguments[0], action: 'approve'})})
           .then(r => r.text().then(t => [r.status, t]));",
        &[request],
    );
    assert_eq!(late[0], 409, "{late}");
    assert!(late[1].as_str().unwrap_or_default().contains("already accepted"), "{late}");
    assert_eq!(runs(&tools), ["production"], "ran once");
    // The other tab drops the answered call by itself.
    browser.wait_until(
        &format!("return document.querySelector('{first}') === null;"),
        "c1 to leave the second tab",
    );
    assert_eq!(browser.text("#count"), "1");

    // The history: who answered, filtered by tool and outcome.
    browser.go(&format!("http://127.0.0.1:{}/history?outcome=approved", inbox.port));
    let rows = browser.js(
        "return [...document.querySelectorAll('#history tr.receipt')].map(tr =>
           [tr.dataset.callId, tr.querySelector('.answered-by').textContent, tr.querySelector('.result').textContent]);",
        &[],
    );
    assert_eq!(rows, json!([["c1", "user operator", "deployed production"]]), "{rows}");
    browser.go(&format!("http://127.0.0.1:{}/history?outcome=pending&tool=deploy", inbox.port));
    let pending =
        browser.js("return document.querySelectorAll('#history tr.receipt').length;", &[]);
    assert_eq!(pending, 2);
    browser.go(&format!("http://127.0.0.1:{}/history?tool=nothing", inbox.port));
    let none = browser.js("return document.querySelectorAll('#history tr.receipt').length;", &[]);
    assert_eq!(none, 0);
}

#[test]
fn a_call_arrives_without_a_reload_and_a_decline_runs_nothing() {
    let tools = deploy_manifest();
    let inbox = Inbox::start(&tools, &[]);
    let browser = Browser::start();
    browser.go(&inbox.login_url());
    browser.wait_until("return !document.getElementById('empty').hidden;", "the empty list");
    browser.js("window.sameLoad = true;", &[]);

    waiting_call(&tools, "live", r#"{"env": "production"}"#);
    browser.wait_until(&listed("live"), "the call to arrive");
    assert_eq!(browser.js("return window.sameLoad === true;", &[]), true, "no reload");
    assert_eq!(browser.text("#count"), "1");

    let live = item("live");
    browser.type_into(&format!("{live} input[name=reason]"), "not during the freeze");
    browser.click(&format!("{live} button.decline"));
    browser.wait_until(
        &format!(
            "return document.querySelector('{live} .status')?.textContent.includes('did not run');"
        ),
        "the decline",
    );
    assert!(runs(&tools).is_empty(), "nothing ran");
    let log = toolwire().arg("--journal").arg(journal_of(&tools)).args(["log", "--json"]).output();
    let log = String::from_utf8_lossy(&log.expect("runs").stdout).into_owned();
    let last: Value = serde_json::from_str(log.lines().last().unwrap_or("null")).expect("JSON");
    assert_eq!(last["policy"]["outcome"], "refused", "{last}");
    assert!(last["result"]["text"].as_str().unwrap_or_default().contains("not during the freeze"));
}

/// Enter in the reason's field "clicked" the form's first button, Approve: an approver who
/// typed why they declined, and pressed Enter, ran the call.
#[test]
fn regression_enter_in_the_reason_field_approved_the_call() {
    let tools = deploy_manifest();
    waiting_call(&tools, "c1", r#"{"env": "production"}"#);
    let inbox = Inbox::start(&tools, &[]);
    let browser = Browser::start();
    browser.go(&inbox.login_url());
    let reason = format!("{} input[name=reason]", item("c1"));
    browser.type_into(&reason, "too risky\u{E007}");
    std::thread::sleep(Duration::from_secs(1));
    assert!(runs(&tools).is_empty(), "nothing ran");
    assert_eq!(browser.text(&format!("{} .status", item("c1"))), "");
    assert!(inbox.waiting().iter().any(|i| i["call_id"] == "c1"), "the call still waits");
}

#[test]
fn markup_in_arguments_shows_as_text_when_listed_and_when_it_arrives() {
    let tools = deploy_manifest();
    let attack = "<img src=x onerror=\"window.pwned=1\"><script>window.pwned=2</script>";
    let arguments =
        json!({"env": attack, "note": "</td></tr></table><b id=injected>x</b>"}).to_string();
    waiting_call(&tools, "listed", &arguments);
    let inbox = Inbox::start(&tools, &[]);
    let browser = Browser::start();
    browser.go(&inbox.login_url());
    browser.find(&item("listed"));
    waiting_call(&tools, "arrived", &arguments);
    browser.wait_until(&listed("arrived"), "the live item");
    std::thread::sleep(Duration::from_millis(300));
    for call in ["listed", "arrived"] {
        let shown = browser.text(&format!("{} tr[data-field=env] td.value", item(call)));
        assert_eq!(shown, attack, "{call}");
    }
    let pwned = browser.js(
        "return [window.pwned, document.getElementById('injected'), document.querySelectorAll('li.item img').length];",
        &[],
    );
    assert_eq!(pwned, json!([null, null, 0]), "no markup ran or was made");
}

#[test]
fn an_mcp_server_s_form_is_filled_in_and_submitted() {
    let (_server, table) = crate::sdk_servers::python_over_http();
    let tools = manifest(&table);
    let journal = journal_of(&tools);
    let waiting = toolwire()
        .arg("--journal")
        .arg(&journal)
        .arg("-m")
        .arg(&tools)
        .args(["call", "py__release", "--args", "{}", "--call-id", "r1"])
        .output()
        .expect("runs");
    assert_eq!(waiting.status.code(), Some(3), "{}", stderr(&waiting));
    let inbox = Inbox::start(&tools, &[]);
    let browser = Browser::start();
    browser.go(&inbox.login_url());
    let form = item("r1");
    browser.find(&format!("{form} fieldset.form"));
    assert_eq!(
        browser.js(&format!("return document.querySelector('{form} button.approve');"), &[]),
        Value::Null
    );
    browser.type_into(&format!("{form} input[data-field=version]"), "2.0");
    browser.click(&format!("{form} input[data-field=notify]"));
    browser.click(&format!("{form} button[value=submit]"));
    browser.wait_until(
        &format!(
            "return document.querySelector('{form} .status')?.textContent.includes('released');"
        ),
        "the form's result",
    );
    let said = browser.text(&format!("{form} .status"));
    assert!(said.contains("released 2.0 (notify: True)"), "{said}");
}

/// Serves `page` to every request on a loopback port of its own, another site's.
fn another_site(page: String) -> u16 {
    let listener = TcpListener::bind("127.0.0.1:0").expect("binds");
    let port = listener.local_addr().expect("bound").port();
    std::thread::spawn(move || {
        for stream in listener.incoming().take(8) {
            let Ok(mut stream) = stream else { continue };
            let mut buffer = [0u8; 8192];
            let _ = stream.read(&mut buffer);
            let reply = format!(
                "HTTP/1.1 200 OK\r\nContent-Type: text/html\r\nContent-Length: {}\r\nConnection: close\r\n\r\n{page}",
                page.len()
            );
            let _ = stream.write_all(reply.as_bytes());
        }
    });
    port
}

#[test]
fn another_site_open_in_the_same_browser_cannot_answer() {
    let tools = deploy_manifest();
    waiting_call(&tools, "c1", r#"{"env": "production"}"#);
    let inbox = Inbox::start(&tools, &[]);
    let request = inbox.request_of("c1");
    let browser = Browser::start();
    browser.go(&inbox.login_url());
    browser.find(&item("c1"));

    // A page on another port of the same host: the browser sends the session cookie with
    // its requests (same site), but not its CSRF token, and says where they come from.
    let target = format!("http://127.0.0.1:{}/api/answer", inbox.port);
    let body = json!({"request_id": request, "action": "approve"}).to_string();
    let page = format!(
        r#"<!doctype html><form id=f method=post enctype="text/plain" action="{target}">
        <input name='{body_start}' value='{body_end}'></form>
        <script>
          fetch("{target}", {{method: "POST", credentials: "include", mode: "no-cors",
            headers: {{"Content-Type": "text/plain"}}, body: {body:?}}}).finally(() => f.submit());
        </script>"#,
        body_start = &body[..body.len() - 2],
        body_end = &body[body.len() - 2..],
    );
    let site = another_site(page);
    browser.go(&format!("http://127.0.0.1:{site}/"));
    std::thread::sleep(Duration::from_secs(2));
    assert!(runs(&tools).is_empty(), "nothing ran");
    assert_eq!(inbox.request_of("c1"), request, "the call still waits");
    let said = browser.js("return document.body ? document.body.innerText : '';", &[]);
    assert!(said.as_str().unwrap_or_default().contains("another site"), "{said}");
}
