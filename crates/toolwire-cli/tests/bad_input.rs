//! The bad-input cases of manifests: a missing program, and a command that floods stdout.

use crate::common::{manifest, toolwire};
use predicates::str::contains;

#[test]
fn a_missing_program_is_a_clear_tool_failure() {
    let path = manifest(
        "[[tool]]\nname = \"gone\"\n[tool.command]\nargv = [\"no-such-program-toolwire\"]\n",
    );
    toolwire().args(["call", "gone", "-m"]).arg(&path).assert().code(1).stderr(
        "error: cannot run \"gone\": program \"no-such-program-toolwire\" was not found on PATH\n",
    );
}

#[test]
fn a_missing_program_is_an_error_of_check() {
    let path = manifest("[[tool]]\nname = \"gone\"\n[tool.command]\nargv = [\"./not-here.sh\"]\n");
    toolwire()
        .args(["check", "-m"])
        .arg(&path)
        .assert()
        .code(2)
        .stderr(contains("was not found or is not executable"));
}

#[test]
fn a_command_that_floods_stdout_is_stopped_at_its_limit() {
    let path = manifest(
        "[[tool]]\nname = \"flood\"\n[tool.command]\nargv = [\"yes\"]\noutput_limit = 1000\n",
    );
    let started = std::time::Instant::now();
    toolwire()
        .args(["call", "flood", "-m"])
        .arg(&path)
        .assert()
        .code(1)
        .stdout("")
        .stderr("error: \"flood\": the command wrote more than 1000 bytes to stdout\n");
    assert!(
        started.elapsed() < std::time::Duration::from_secs(5),
        "the flood was not stopped at once"
    );
}

#[test]
fn a_flood_under_the_default_limit_is_stopped_too() {
    let path = manifest("[[tool]]\nname = \"flood\"\n[tool.command]\nargv = [\"yes\"]\n");
    toolwire()
        .args(["call", "flood", "-m"])
        .arg(&path)
        .assert()
        .code(1)
        .stderr(contains("the command wrote more than 1048576 bytes to stdout"));
}

#[test]
fn a_missing_manifest_is_a_usage_error() {
    toolwire()
        .args(["check", "-m", "/no/such/tools.toml"])
        .assert()
        .code(2)
        .stderr(contains("error: cannot read manifest /no/such/tools.toml"));
}
