//! `toolwire call`: results, failures and exit codes, on the shipped example and on small
//! manifests.

use crate::common;

use crate::common::{example, manifest, stderr, stdout, toolwire};
use predicates::str::contains;

#[test]
fn a_call_prints_the_result_and_exits_0() {
    toolwire()
        .args(["call", "echo", "--args", r#"{"message": "hello"}"#, "--manifest"])
        .arg(example())
        .assert()
        .success()
        .stdout("hello\n");
}

#[test]
fn an_argument_stays_one_argv_element_and_never_reaches_a_shell() {
    let hostile = r#"{"message": "a; echo INJECTED $(id) `id` | cat > /tmp/x"}"#;
    toolwire()
        .args(["call", "echo", "--args", hostile, "--manifest"])
        .arg(example())
        .assert()
        .success()
        .stdout("a; echo INJECTED $(id) `id` | cat > /tmp/x\n");
}

#[test]
fn numbers_fill_the_argv_template() {
    toolwire()
        .args(["call", "add", "--args", r#"{"a": 2, "b": 40}"#, "-m"])
        .arg(example())
        .assert()
        .success()
        .stdout("42\n");
}

#[test]
fn invalid_arguments_are_a_tool_failure_exit_1() {
    toolwire()
        .args(["call", "add", "--args", r#"{"a": "2", "b": 40}"#, "-m"])
        .arg(example())
        .assert()
        .code(1)
        .stderr(contains(r#"invalid arguments for "add": /a: "2" is not of type "integer""#));
}

#[test]
fn unreadable_args_json_is_a_usage_error_exit_2() {
    toolwire()
        .args(["call", "echo", "--args", "{nope", "-m"])
        .arg(example())
        .assert()
        .code(2)
        .stderr(contains("invalid --args"));
}

#[test]
fn an_unknown_tool_is_a_usage_error_exit_2() {
    toolwire()
        .args(["call", "nope", "-m"])
        .arg(example())
        .assert()
        .code(2)
        .stderr(contains(r#"unknown tool "nope""#));
}

#[test]
fn a_call_that_needs_approval_without_a_terminal_is_pending_exit_3() {
    toolwire()
        .args(["call", "deploy", "--args", r#"{"env": "staging"}"#, "-m"])
        .arg(example())
        .assert()
        .code(3)
        .stdout("")
        .stderr(contains(r#"pending: allow a call of "deploy"?"#));
}

#[test]
fn yes_approves_the_call() {
    toolwire()
        .args(["call", "deploy", "--yes", "--args", r#"{"env": "staging"}"#, "-m"])
        .arg(example())
        .assert()
        .success()
        .stdout("deployed to staging\n");
}

#[test]
fn json_prints_the_receipt() {
    let output = toolwire()
        .args(["call", "echo", "--json", "--args", r#"{"message": "hi"}"#, "-m"])
        .arg(example())
        .output();
    let output = output.unwrap_or_else(|error| panic!("toolwire did not run: {error}"));
    assert_eq!(output.status.code(), Some(0));
    let receipt: serde_json::Value =
        serde_json::from_slice(&output.stdout).unwrap_or_else(|error| panic!("not JSON: {error}"));
    assert_eq!(receipt["tool"], "echo");
    assert_eq!(receipt["result"]["success"], true);
    assert_eq!(receipt["result"]["text"], "hi");
    assert_eq!(receipt["result"]["json"]["stdout"], "hi\n");
}

#[test]
fn json_of_a_pending_call_prints_the_request_and_exits_3() {
    let output = toolwire()
        .args(["call", "deploy", "--json", "--args", r#"{"env": "production"}"#, "-m"])
        .arg(example())
        .output();
    let output = output.unwrap_or_else(|error| panic!("toolwire did not run: {error}"));
    assert_eq!(output.status.code(), Some(3), "{}", stderr(&output));
    let receipt: serde_json::Value =
        serde_json::from_slice(&output.stdout).unwrap_or_else(|error| panic!("not JSON: {error}"));
    assert_eq!(receipt["result"]["json"]["pending"]["kind"], "approval");
    assert_eq!(receipt["result"]["json"]["pending"]["data"]["arguments"]["env"], "production");
}

#[test]
fn the_child_sees_only_the_allowlisted_environment() {
    let path = manifest(
        "[[tool]]\nname = \"env\"\n[tool.command]\nargv = [\"env\"]\nenv = [\"TOOLWIRE_KEEP\"]\n",
    );
    let output = toolwire()
        .args(["call", "env", "-m"])
        .arg(&path)
        .env("TOOLWIRE_KEEP", "kept")
        .env("TOOLWIRE_DROP", "dropped")
        .output();
    let output = output.unwrap_or_else(|error| panic!("toolwire did not run: {error}"));
    let out = stdout(&output);
    let mut lines: Vec<&str> = out.lines().collect();
    lines.sort_unstable();
    // TMPDIR is the sandbox's: the call's private temporary folder.
    assert_eq!(lines.len(), 2, "{out}{}", stderr(&output));
    assert!(lines[0].starts_with("TMPDIR=") && lines[0].contains("toolwire-call-"), "{out}");
    assert_eq!(lines[1], "TOOLWIRE_KEEP=kept", "{out}");
}

#[test]
fn cwd_is_relative_to_the_manifest() {
    let path =
        manifest("[[tool]]\nname = \"where\"\n[tool.command]\nargv = [\"pwd\"]\ncwd = \"sub\"\n");
    let folder = path.parent().map(|folder| folder.join("sub")).unwrap_or_default();
    std::fs::create_dir_all(&folder)
        .unwrap_or_else(|error| panic!("cannot make {}: {error}", folder.display()));
    let expected = format!("{}\n", folder.display());
    toolwire().args(["call", "where", "-m"]).arg(&path).assert().success().stdout(expected);
}

#[test]
fn a_json_output_becomes_the_results_json() {
    let path = manifest(
        "[[tool]]\nname = \"j\"\nparameters = { type = \"object\", properties = { n = { type = \"integer\" } } }\n\
         [tool.command]\nargv = [\"echo\", \"{{\\\"n\\\": {n}}}\"]\noutput = \"json\"\n",
    );
    let output =
        toolwire().args(["call", "j", "--json", "--args", r#"{"n": 7}"#, "-m"]).arg(&path).output();
    let output = output.unwrap_or_else(|error| panic!("toolwire did not run: {error}"));
    let receipt: serde_json::Value = serde_json::from_slice(&output.stdout)
        .unwrap_or_else(|error| panic!("not JSON: {error}; {}", stderr(&output)));
    assert_eq!(receipt["result"]["json"], serde_json::json!({"n": 7}));
}

#[test]
fn a_failing_command_is_a_tool_failure_with_its_stderr() {
    let path =
        manifest("[[tool]]\nname = \"ls\"\n[tool.command]\nargv = [\"ls\", \"/no/such/folder\"]\n");
    toolwire()
        .args(["call", "ls", "-m"])
        .arg(&path)
        .assert()
        .code(1)
        .stderr(contains(r#"error: "ls" exited with status 2: ls: cannot access"#));
}

#[test]
fn a_command_past_its_timeout_is_killed() {
    let path = manifest(
        "[[tool]]\nname = \"slow\"\n[tool.command]\nargv = [\"sleep\", \"10\"]\ntimeout = \"200ms\"\n",
    );
    let started = std::time::Instant::now();
    toolwire()
        .args(["call", "slow", "-m"])
        .arg(&path)
        .assert()
        .code(1)
        .stderr(contains(r#"error: "slow" ran longer than 200ms and was killed"#));
    assert!(started.elapsed() < std::time::Duration::from_secs(5));
}

#[test]
fn call_timeout_gives_the_call_a_deadline() {
    let path = manifest("[[tool]]\nname = \"slow\"\n[tool.command]\nargv = [\"sleep\", \"10\"]\n");
    toolwire().args(["call", "slow", "--timeout", "200ms", "-m"]).arg(&path).assert().code(1);
}

#[test]
fn a_call_id_runs_the_call_once_through_the_journal() {
    let journal = common::scratch("journal").join("journal.sqlite");
    let counter = common::scratch("counter").join("runs.txt");
    // A command with a side effect outside the journal: it appends a line each time it runs.
    let path = manifest(&format!(
        "[[tool]]\nname = \"note\"\nparameters = {{ type = \"object\", properties = {{ text = {{ type = \"string\" }} }}, required = [\"text\"] }}\n\
         [tool.command]\nargv = [\"sh\", \"-c\", \"echo \\\"$0\\\" >> {}; echo noted\", \"{{text}}\"]\n\
         [tool.command.sandbox]\nwrite = [{:?}]\n",
        counter.display(),
        counter.parent().map(|folder| folder.display().to_string()).unwrap_or_default()
    ));
    let call = |text: &str| {
        toolwire()
            .args([
                "call",
                "note",
                "--call-id",
                "c1",
                "--args",
                &format!(r#"{{"text": "{text}"}}"#),
                "--journal",
            ])
            .arg(&journal)
            .arg("-m")
            .arg(&path)
            .output()
            .unwrap_or_else(|e| panic!("{e}"))
    };
    let first = call("once");
    assert_eq!(first.status.code(), Some(0), "{}", stderr(&first));
    let again = call("once");
    assert_eq!(again.status.code(), Some(0), "{}", stderr(&again));
    assert_eq!(stdout(&again), stdout(&first), "the replay returns the recorded result");
    let runs = std::fs::read_to_string(&counter).unwrap_or_default();
    assert_eq!(runs.lines().count(), 1, "the command ran once: {runs:?}");
    let other = call("other");
    assert_eq!(other.status.code(), Some(1));
    assert!(stderr(&other).contains("other arguments"), "{}", stderr(&other));
}

/// Regression: with a relative `--manifest` (or the default one in the current folder), a
/// tool's relative `cwd` and sandbox paths failed ("the working folder path srv cannot be
/// resolved"): they were resolved again from the tool's working folder.
#[test]
fn regression_a_relative_manifest_path_keeps_relative_folders_working() {
    let folder = crate::common::scratch("relative");
    std::fs::create_dir_all(folder.join("srv")).expect("a folder");
    std::fs::create_dir_all(folder.join("outbox")).expect("a folder");
    std::fs::create_dir_all(folder.join("sub")).expect("a folder");
    let tool = |cwd: &str, write: &str| {
        format!(
            "[[tool]]\nname = \"t\"\ndescription = \"t\"\n[tool.command]\nargv = [\"sh\", \"-c\", \"pwd; echo made > {write}/made\"]\ncwd = \"{cwd}\"\n[tool.command.sandbox]\nwrite = [\"{}\"]\n",
            if cwd == "srv" { "outbox" } else { "." }
        )
    };
    std::fs::write(folder.join("tools.toml"), tool("srv", "../outbox")).expect("written");
    std::fs::write(folder.join("sub/toolwire.toml"), tool(".", ".")).expect("written");
    for (manifest, made) in [("tools.toml", "outbox/made"), ("sub/toolwire.toml", "sub/made")] {
        let output = crate::common::toolwire()
            .current_dir(&folder)
            .args(["call", "t", "--args", "{}", "--manifest", manifest])
            .output()
            .expect("runs");
        assert!(output.status.success(), "{manifest}: {}", crate::common::stderr(&output));
        assert!(folder.join(made).exists(), "{manifest}: nothing made");
    }
    let default = crate::common::toolwire()
        .current_dir(folder.join("sub"))
        .args(["call", "t", "--args", "{}"])
        .output()
        .expect("runs");
    assert!(default.status.success(), "the default manifest: {}", crate::common::stderr(&default));
}
