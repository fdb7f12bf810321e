//! Results that carry images, audio, files, embedded resources and links, from a server made
//! with the official Python SDK (`interop/python/server.py`, its `media` tool), through
//! `toolwire call` and through `toolwire serve` to the Python SDK's own client
//! (`interop/python/media_client.py`); and the size of a result over stdio and HTTP.

use std::process::Command;
use std::time::{Duration, Instant};

use serde_json::Value;

use crate::common::http::Served;
use crate::common::{manifest, scratch, stderr, stdout, toolwire};
use crate::sdk_servers::{python_over_http, python_stdio};
use toolwire_test_support::python::{client_dir, python};

/// The base64 of the PNG the Python server's `media` tool returns.
const PNG_BASE64: &str =
    "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR4nGMAAQAABQABDQottAAAAABJRU5ErkJggg==";

/// What the Python SDK's client reads from `tool` at `url`, in `mode` (`default` settles on
/// 2026-07-28, `legacy` on 2025-11-25).
fn python_client(url: &str, mode: &str, tool: &str) -> Value {
    let output = Command::new(python())
        .arg(client_dir().join("media_client.py"))
        .args([url, mode, tool])
        .output()
        .expect("the python client runs");
    let text = String::from_utf8_lossy(&output.stdout);
    let seen: Value = serde_json::from_str(text.trim()).unwrap_or_else(|_| {
        panic!("not JSON: {text}\n{}", String::from_utf8_lossy(&output.stderr))
    });
    assert!(seen.get("error").is_none(), "{seen}");
    seen
}

#[test]
fn a_python_sdk_servers_media_reach_a_python_sdk_client_through_serve_with_the_same_blocks() {
    let (_http, table) = python_over_http();
    let direct_url = table.split('"').nth(1).expect("the url").to_owned();
    let direct = python_client(&direct_url, "default", "media");
    let blocks = direct["content"].as_array().expect("blocks");
    assert_eq!(blocks.len(), 7, "{direct}");

    let over_stdio = python_stdio("");
    for (upstream, table) in [("http", &table), ("stdio", &over_stdio)] {
        let served = Served::start(&manifest(table), &[]);
        for mode in ["default", "legacy"] {
            let through = python_client(&served.url(), mode, "py__media");
            assert_eq!(through["isError"], false, "{through}");
            assert_eq!(
                through["content"], direct["content"],
                "upstream over {upstream}, client {mode} ({}): the blocks differ",
                through["protocol"]
            );
        }
    }
}

#[test]
fn regression_an_image_beside_text_is_shown_in_the_terminal_not_lost() {
    let tools = manifest(&python_stdio(""));
    let output =
        toolwire().arg("-m").arg(&tools).args(["call", "py__media"]).output().expect("runs");
    assert!(output.status.success(), "{}", stderr(&output));
    let shown = stdout(&output);
    let lines: Vec<&str> = shown.lines().collect();
    assert_eq!(lines[0], "before the picture", "{shown}");
    assert_eq!(lines[1], "[image image/png, 67 bytes]", "{shown}");
    assert_eq!(lines[2], "after the picture", "{shown}");
    assert_eq!(lines[3], "[audio audio/wav, 44 bytes]", "{shown}");
    assert!(lines[4].starts_with("[resource file:///reports/q3.pdf (application/pdf)"), "{shown}");
    assert!(lines[5].starts_with("[resource file:///notes.md (text/markdown)"), "{shown}");
    assert_eq!(lines[6], "[resource_link https://example.com/data.csv]", "{shown}");
    assert!(!shown.contains(PNG_BASE64), "no base64 in the terminal: {shown}");
}

#[test]
fn call_save_writes_each_part_out_and_json_prints_each_part_once() {
    let tools = manifest(&python_stdio(""));
    let dir = scratch("saved").join("parts");
    let output = toolwire()
        .arg("-m")
        .arg(&tools)
        .args(["call", "py__media", "--save"])
        .arg(&dir)
        .output()
        .expect("runs");
    assert!(output.status.success(), "{}", stderr(&output));
    let png = std::fs::read(dir.join("1-image.png")).expect("the image is saved");
    assert_eq!(&png[..8], b"\x89PNG\r\n\x1a\n");
    let pdf = std::fs::read(dir.join("4-q3.pdf")).expect("the PDF is saved");
    assert!(pdf.starts_with(b"%PDF-"));
    assert_eq!(
        std::fs::read_to_string(dir.join("5-notes.md")).expect("notes"),
        "# Notes\nall good"
    );
    assert!(stdout(&output).contains(&format!("saved to {}", dir.join("1-image.png").display())));

    // Saving again never overwrites.
    let again = toolwire()
        .arg("-m")
        .arg(&tools)
        .args(["call", "py__media", "--save"])
        .arg(&dir)
        .output()
        .expect("runs");
    assert!(!again.status.success());
    assert!(stderr(&again).contains("--save: cannot write"), "{}", stderr(&again));
    assert!(stdout(&again).contains("before the picture"), "the result is still shown");

    let json = toolwire()
        .arg("-m")
        .arg(&tools)
        .args(["call", "py__media", "--json"])
        .output()
        .expect("runs");
    let text = stdout(&json);
    assert_eq!(text.matches(PNG_BASE64).count(), 1, "{text}");
    let receipt: Value = serde_json::from_str(&text).expect("a receipt");
    assert_eq!(receipt["result"]["parts"][1]["type"], "image");
    assert_eq!(receipt["result"]["parts"][1]["annotations"]["priority"], 0.5);
}

/// Calls `flood` of `megabytes` through a manifest table, and how long it took. The Python
/// SDK sends the text twice (as `content` and as `structuredContent`): 10 MiB of text is an
/// answer of 20 MiB, over rmcp's 16 MiB default.
fn flood(table: &str, megabytes: u32) -> (std::process::Output, Duration) {
    let tools = manifest(table);
    let started = Instant::now();
    let output = toolwire()
        .arg("-m")
        .arg(&tools)
        .args(["call", "py__flood", "--args", &format!("{{\"megabytes\": {megabytes}}}")])
        .output()
        .expect("runs");
    (output, started.elapsed())
}

#[test]
fn regression_a_result_over_16_mib_from_a_stdio_server_fails_at_once_naming_its_size() {
    let (output, took) = flood(&python_stdio("output_limit = 16777216\n"), 10);
    let text = stderr(&output);
    assert!(!output.status.success());
    assert!(text.contains("an answer of 2097"), "{text}");
    assert!(text.contains("more than the 16777216 bytes allowed (its output_limit)"), "{text}");
    assert!(
        took < Duration::from_secs(30),
        "it failed at once, not after an idle timeout: {took:?}"
    );

    let (output, _) = flood(&python_stdio("output_limit = 33554432\n"), 10);
    assert!(
        output.status.success(),
        "an output_limit above 16 MiB is met over stdio: {}",
        stderr(&output)
    );
    assert_eq!(stdout(&output).trim().len(), 10 << 20);
}

#[test]
fn regression_a_result_over_16_mib_over_http_fails_in_words_and_output_limit_applies() {
    let (_http, table) = python_over_http();
    let (output, _) = flood(&format!("{table}output_limit = 16777216\n"), 10);
    let text = stderr(&output);
    assert!(!output.status.success());
    // The Python server answers 2026-07-28 with its length, so the size is named.
    assert!(text.contains("mcp server \"py\" answered the call to \"flood\""), "{text}");
    assert!(text.contains("more than the 16777216 bytes allowed (its output_limit)"), "{text}");
    assert!(!text.contains("rmcp::") && !text.contains("Transport ["), "no type names: {text}");

    let (output, _) = flood(&format!("{table}output_limit = 33554432\n"), 10);
    assert!(
        output.status.success(),
        "an output_limit above 16 MiB is met over HTTP: {}",
        stderr(&output)
    );
    assert_eq!(stdout(&output).trim().len(), 10 << 20);
}

/// A 1x1 PNG.
const PNG: &[u8] = &[
    0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A, 0x00, 0x00, 0x00, 0x0D, 0x49, 0x48, 0x44, 0x52,
    0x00, 0x00, 0x00, 0x01, 0x00, 0x00, 0x00, 0x01, 0x08, 0x06, 0x00, 0x00, 0x00, 0x1F, 0x15, 0xC4,
    0x89, 0x00, 0x00, 0x00, 0x0D, 0x49, 0x44, 0x41, 0x54, 0x78, 0x9C, 0x63, 0x00, 0x01, 0x00, 0x00,
    0x05, 0x00, 0x01, 0x0D, 0x0A, 0x2D, 0xB4, 0x00, 0x00, 0x00, 0x00, 0x49, 0x45, 0x4E, 0x44, 0xAE,
    0x42, 0x60, 0x82,
];

/// A manifest of one command tool `chart` in a folder holding `dot.png`, whose
/// `[tool.command]` table ends with `more`.
fn chart_tool(argv: &str, more: &str) -> std::path::PathBuf {
    let path = manifest(&format!(
        "[[tool]]\nname = \"chart\"\n[tool.command]\nargv = {argv}\ncwd = \".\"\n{more}"
    ));
    let folder = path.parent().expect("a folder");
    std::fs::write(folder.join("dot.png"), PNG).expect("the picture");
    path
}

/// `toolwire call chart --json`, its exit status and receipt.
fn call_chart(tools: &std::path::Path) -> (bool, Value, String) {
    let output =
        toolwire().arg("-m").arg(tools).args(["call", "chart", "--json"]).output().expect("runs");
    let receipt = serde_json::from_slice(&output.stdout).unwrap_or(Value::Null);
    (output.status.success(), receipt, stderr(&output))
}

#[test]
fn a_sandboxed_command_returns_the_file_it_wrote_as_an_image_and_its_stdout_as_text() {
    let tools = chart_tool(
        r#"["sh", "-c", "cp dot.png chart.png && echo drawn"]"#,
        "output = \"image/png\"\noutput_file = \"chart.png\"\n",
    );
    let (ok, receipt, err) = call_chart(&tools);
    assert!(ok, "{err} {receipt}");
    let result = &receipt["result"];
    assert_eq!(result["text"], "drawn");
    assert_eq!(result["parts"][0]["type"], "image");
    assert_eq!(result["parts"][0]["mimeType"], "image/png");
    assert_eq!(result["parts"][0]["data"], PNG_BASE64);
}

#[test]
fn a_commands_stdout_is_a_part_of_its_declared_type_and_lying_bytes_are_refused() {
    let tools = chart_tool(r#"["cat", "dot.png"]"#, "output = \"image/png\"\nsandbox = \"none\"\n");
    let (ok, receipt, err) = call_chart(&tools);
    assert!(ok, "{err}");
    assert_eq!(receipt["result"]["parts"][0]["data"], PNG_BASE64);
    assert_eq!(receipt["result"]["text"], Value::Null);

    let liar =
        chart_tool(r#"["echo", "not a picture"]"#, "output = \"image/png\"\nsandbox = \"none\"\n");
    let (ok, receipt, _) = call_chart(&liar);
    assert!(!ok);
    assert_eq!(receipt["failure"], "invalid_output");
    let text = receipt["result"]["text"].as_str().unwrap_or_default();
    assert!(
        text.contains("declares image/png but its bytes do not start as image/png does"),
        "{text}"
    );
}

#[test]
fn an_output_file_that_is_a_symlink_to_a_secret_is_refused_and_the_secret_never_shown() {
    let secret_dir = scratch("secret");
    let secret = secret_dir.join("api-key.txt");
    std::fs::write(&secret, "sk-the-hosts-own-key").expect("a secret");
    let argv = format!(r#"["ln", "-sf", {:?}, "chart.png"]"#, secret.display().to_string());
    let tools = chart_tool(&argv, "output = \"image/png\"\noutput_file = \"chart.png\"\n");
    let (ok, receipt, err) = call_chart(&tools);
    assert!(!ok, "{receipt}");
    let text = receipt["result"]["text"].as_str().unwrap_or_default();
    assert!(text.contains("is reached through a symlink, which is refused"), "{text} {err}");
    assert!(!receipt.to_string().contains("sk-the-hosts-own-key"));
    assert!(!receipt.to_string().contains("c2stdGhlLWhvc3Rz"), "nor in base64");

    // A folder on the way that is a symlink is refused as well.
    let argv = format!(r#"["ln", "-sfn", {:?}, "out"]"#, secret_dir.display().to_string());
    let tools = chart_tool(&argv, "output = \"image/png\"\noutput_file = \"out/api-key.txt\"\n");
    let (ok, receipt, _) = call_chart(&tools);
    assert!(!ok);
    assert!(!receipt.to_string().contains("sk-the-hosts-own-key"));
}

#[test]
fn an_output_file_with_another_hard_link_is_refused() {
    // A call that links a file it can read in as its output would hand toolwire, outside the
    // sandbox, a file that stands elsewhere too.
    let tools = chart_tool(
        r#"["sh", "-c", "cp dot.png kept.png && ln kept.png chart.png"]"#,
        "output = \"image/png\"\noutput_file = \"chart.png\"\n",
    );
    let (ok, receipt, err) = call_chart(&tools);
    assert!(!ok, "{receipt}");
    let text = receipt["result"]["text"].as_str().unwrap_or_default();
    assert!(text.contains("has other hard links, which is refused"), "{text} {err}");
    assert!(!receipt.to_string().contains(PNG_BASE64), "the bytes are not sent");
}

#[test]
fn an_output_file_the_call_did_not_write_is_refused() {
    let tools = chart_tool(r#"["true"]"#, "output = \"image/png\"\noutput_file = \"chart.png\"\n");
    let folder = tools.parent().expect("a folder");
    let stale = std::fs::File::create(folder.join("chart.png")).expect("a stale file");
    std::io::Write::write_all(&mut &stale, PNG).expect("written");
    stale.set_modified(std::time::SystemTime::now() - Duration::from_secs(3600)).expect("aged");
    let (ok, receipt, _) = call_chart(&tools);
    assert!(!ok);
    let text = receipt["result"]["text"].as_str().unwrap_or_default();
    assert!(text.contains("was not written by this call"), "{text}");

    std::fs::remove_file(folder.join("chart.png")).expect("removed");
    let (ok, receipt, _) = call_chart(&tools);
    assert!(!ok);
    assert!(
        receipt["result"]["text"]
            .as_str()
            .unwrap_or_default()
            .contains("did not write its output file chart.png")
    );
}

#[test]
fn a_manifest_output_file_outside_the_working_folder_is_an_error_at_its_line() {
    let tools = chart_tool(r#"["true"]"#, "output = \"image/png\"\noutput_file = \"../x.png\"\n");
    let output = toolwire().arg("-m").arg(&tools).args(["call", "chart"]).output().expect("runs");
    let text = stderr(&output);
    assert!(!output.status.success());
    assert!(text.contains("must be a path inside the working folder"), "{text}");
    assert!(text.contains("tools.toml:"), "it names the place: {text}");

    let tools = chart_tool(r#"["true"]"#, "output_file = \"x.png\"\n");
    let output = toolwire().arg("-m").arg(&tools).args(["call", "chart"]).output().expect("runs");
    assert!(
        stderr(&output).contains("output_file needs output to be the file's MIME type"),
        "{}",
        stderr(&output)
    );
}

#[test]
fn an_http_tools_image_response_is_an_image_part() {
    use std::io::{Read as _, Write as _};
    let listener = std::net::TcpListener::bind("127.0.0.1:0").expect("a port");
    let port = listener.local_addr().expect("bound").port();
    let server = std::thread::spawn(move || {
        let (mut stream, _) = listener.accept().expect("a request");
        let mut request = Vec::new();
        let mut buffer = [0u8; 4096];
        while !request.windows(4).any(|window| window == b"\r\n\r\n") {
            let read = stream.read(&mut buffer).unwrap_or(0);
            if read == 0 {
                break;
            }
            request.extend_from_slice(&buffer[..read]);
        }
        let head = format!(
            "HTTP/1.1 200 OK\r\ncontent-type: image/png\r\ncontent-length: {}\r\nconnection: close\r\n\r\n",
            PNG.len()
        );
        let _ = stream.write_all(head.as_bytes());
        let _ = stream.write_all(PNG);
    });
    let tools = manifest(&format!(
        "[[tool]]\nname = \"map\"\n[tool.http]\nurl = \"http://127.0.0.1:{port}/map.png\"\n"
    ));
    let output =
        toolwire().arg("-m").arg(&tools).args(["call", "map", "--json"]).output().expect("runs");
    let _ = server.join();
    assert!(output.status.success(), "{}", stderr(&output));
    let receipt: Value = serde_json::from_slice(&output.stdout).expect("a receipt");
    assert_eq!(receipt["result"]["parts"][0]["type"], "image");
    assert_eq!(receipt["result"]["parts"][0]["data"], PNG_BASE64);
}
