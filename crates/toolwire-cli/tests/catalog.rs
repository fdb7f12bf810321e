//! The deferred catalog from a manifest: `defer_loading`, `defer_threshold`, what `check`
//! says of it, and `toolwire run` offering `search_tools` and the tools it finds.

use crate::common;

use crate::common::model::{bodies, calling, mock_model, saying};
use crate::common::{manifest, stderr, stdout, toolwire};
use serde_json::Value;

fn run(command: &mut assert_cmd::Command) -> std::process::Output {
    command.output().unwrap_or_else(|error| panic!("toolwire did not run: {error}"))
}

/// A `[[tool]]` that prints its `message`, with `extra` lines in its table.
fn echo_tool(name: &str, description: &str, extra: &str) -> String {
    format!(
        "[[tool]]\nname = \"{name}\"\ndescription = \"{description}\"\n{extra}\n\
         parameters = {{ type = \"object\", properties = {{ message = {{ type = \"string\" }} }} }}\n\
         [tool.command]\nargv = [\"echo\", \"{{message}}\"]\n\n"
    )
}

/// The names of the tools an OpenAI request body offered.
fn offered(body: &str) -> Vec<String> {
    let body: Value = serde_json::from_str(body).unwrap_or_else(|e| panic!("{e}: {body}"));
    let tools = body["tools"].as_array().cloned().unwrap_or_default();
    tools.iter().filter_map(|tool| tool["function"]["name"].as_str().map(str::to_owned)).collect()
}

#[test]
fn check_names_the_deferred_tools_and_the_tokens_each_turn_sends_with_and_without() {
    let mut text: String = (0..120)
        .map(|i| echo_tool(&format!("report_{i}"), "Print a quarterly report line", ""))
        .collect();
    text.push_str(&echo_tool("say", "Print a message", "defer_loading = false"));
    let output = run(toolwire().args(["check", "-m"]).arg(manifest(&text)));
    assert_eq!(output.status.code(), Some(0), "{}", stderr(&output));
    let said = stderr(&output);
    assert!(said.contains("catalog: 120 of 121 tools are deferred"), "{said}");
    assert!(said.contains("report_0, report_1"), "{said}");
    assert!(said.contains("and 90 more"), "{said}");
    assert!(!said.contains(": say,") && !said.contains(", say,"), "say loads always: {said}");
    let line = said
        .lines()
        .find(|line| line.contains("catalog: openai:"))
        .unwrap_or_else(|| panic!("no openai line: {said}"));
    let numbers: Vec<usize> =
        line.split(|c: char| !c.is_ascii_digit()).filter_map(|part| part.parse().ok()).collect();
    // about T tokens (C characters) with deferral, and would be about T2 (C2) without; 4.
    let (with, without) = (numbers[0], numbers[2]);
    assert!(with * 20 < without, "deferral sends far less: {line}");
    assert!(line.contains("estimated"), "the count says it is an estimate: {line}");
}

#[test]
fn check_says_when_nothing_is_deferred_and_a_zero_threshold_turns_deferral_off() {
    let mut text = String::from("defer_threshold = 0\n\n");
    text.extend((0..120).map(|i| echo_tool(&format!("report_{i}"), "Print a line", "")));
    let output = run(toolwire().args(["check", "-m"]).arg(manifest(&text)));
    assert_eq!(output.status.code(), Some(0), "{}", stderr(&output));
    assert!(
        stderr(&output).contains("all 120 tools are sent on every turn"),
        "{}",
        stderr(&output)
    );
}

#[test]
fn a_bad_catalog_setting_fails_the_manifest_where_it_is_written() {
    let text = echo_tool("say", "Print a message", "defer_loading = \"yes\"");
    let output = run(toolwire().args(["check", "-m"]).arg(manifest(&text)));
    assert_eq!(output.status.code(), Some(2), "{}", stderr(&output));
    assert!(stderr(&output).contains("tools.toml:4"), "{}", stderr(&output));
    let negative = format!("defer_threshold = -1\n{}", echo_tool("say", "Print", ""));
    let output = run(toolwire().args(["check", "-m"]).arg(manifest(&negative)));
    assert_eq!(output.status.code(), Some(2), "{}", stderr(&output));
    assert!(stderr(&output).contains("tools.toml:1"), "{}", stderr(&output));
}

#[test]
fn run_offers_search_tools_then_the_tool_it_found_and_refuses_a_guess_first() {
    let (url, server) = mock_model(vec![
        calling("call_1", "shout", r#"{"message": "guessed"}"#),
        calling("call_2", "search_tools", r#"{"query": "shout a message loudly"}"#),
        calling("call_3", "shout", r#"{"message": "found it"}"#),
        saying("all done"),
    ]);
    let mut text = echo_tool("say", "Print a message", "");
    text.push_str(&echo_tool("shout", "Shout a message loudly", "defer_loading = true"));
    let journal = common::scratch("catalog-run").join("journal.sqlite");
    let output = run(toolwire()
        .args(["run", "shout", "--model", "openai:test-model", "--base-url", &url, "--yes", "-m"])
        .arg(manifest(&text))
        .arg("--journal")
        .arg(&journal)
        .env("OPENAI_API_KEY", "test-key"));
    assert_eq!(output.status.code(), Some(0), "{}", stderr(&output));
    assert!(stdout(&output).contains("all done"), "{}", stdout(&output));
    let bodies = bodies(server);
    assert_eq!(offered(&bodies[0]), ["say", "search_tools"]);
    assert_eq!(offered(&bodies[1]), ["say", "search_tools"], "a refused guess finds nothing");
    assert!(bodies[1].contains("no search of this run has found it"), "{}", bodies[1]);
    assert_eq!(offered(&bodies[2]), ["say", "search_tools", "shout"]);
    assert!(bodies[3].contains("found it"), "the found tool ran: {}", bodies[3]);
    let log = run(toolwire().args(["log", "--json", "--journal"]).arg(&journal));
    let receipts: Vec<Value> =
        stdout(&log).lines().filter_map(|line| serde_json::from_str(line).ok()).collect();
    let refused =
        receipts.iter().find(|r| r["tool"] == "shout").unwrap_or_else(|| panic!("{receipts:?}"));
    assert_eq!(refused["failure"], "denied", "the receipt says the guess was refused: {refused}");
}
