//! A kernel without Landlock, as this test makes one: a child run of this test binary denies
//! itself the Landlock system calls (`ENOSYS`, as a kernel built without Landlock answers)
//! with a seccomp filter, then asks for a sandboxed call. The call must fail closed, naming
//! the missing feature and the opt-out, and the program must not have run.

use std::process::Command;

use crate::common::{PYTHON, default_sandbox, folder, run, text};
use toolwire_test_support::landlock::deny_landlock;

/// Set in the child run: the marker file the program would write, had it run.
const CHILD_ENV: &str = "TOOLWIRE_PROCESS_TEST_NO_LANDLOCK";

#[test]
fn without_landlock_a_sandboxed_call_fails_closed_naming_the_feature_and_the_opt_out() {
    let work = folder();
    let marker = work.path().join("ran");
    let exe = std::env::current_exe().unwrap_or_else(|error| panic!("{error}"));
    let output = Command::new(exe)
        .args(["--exact", "no_landlock::child_without_landlock", "--nocapture"])
        .env(CHILD_ENV, &marker)
        .output()
        .unwrap_or_else(|error| panic!("the child run does not start: {error}"));
    let stdout = String::from_utf8_lossy(&output.stdout);
    assert!(output.status.success(), "{stdout}\n{}", String::from_utf8_lossy(&output.stderr));
    let line = stdout
        .lines()
        .find_map(|line| line.strip_prefix("RESULT "))
        .unwrap_or_else(|| panic!("the child printed no result: {stdout}"));
    assert!(line.contains("the sandbox cannot be enforced here"), "{line}");
    assert!(line.contains("Landlock"), "{line}");
    assert!(line.contains("sandbox = \"none\""), "{line}");
    assert!(line.contains("nothing ran"), "{line}");
    assert!(!marker.exists(), "the program ran without its sandbox");
}

/// The child half of the test above; does nothing in a normal run.
#[test]
fn child_without_landlock() {
    let Some(marker) = std::env::var_os(CHILD_ENV) else { return };
    deny_landlock();
    let work = folder();
    let code = format!("open({:?}, 'w').write('x')", marker.to_string_lossy());
    let result = run(default_sandbox(), work.path(), &[PYTHON, "-c", &code]);
    assert!(!result.is_success(), "the call ran: {}", text(&result));
    println!("RESULT {}", text(&result));
}
