//! `--help` output, as snapshots: the commands, the flags, and the exit codes.

use crate::common;

use crate::common::{stdout, toolwire};

fn help(args: &[&str]) -> String {
    let output = toolwire().args(args).arg("--help").output();
    let output = output.unwrap_or_else(|error| panic!("toolwire did not run: {error}"));
    assert_eq!(output.status.code(), Some(0));
    stdout(&output)
}

#[test]
fn toolwire_help() {
    insta::assert_snapshot!(help(&[]));
}

#[test]
fn call_help_documents_the_exit_codes() {
    let text = help(&["call"]);
    assert!(text.contains("3  the call waits for an approval"));
    insta::assert_snapshot!(text);
}

#[test]
fn serve_help() {
    insta::assert_snapshot!(help(&["serve"]));
}

#[test]
fn schema_help() {
    insta::assert_snapshot!(help(&["schema"]));
}

#[test]
fn approvals_help() {
    insta::assert_snapshot!(help(&["approvals"]));
}

#[test]
fn resolve_help() {
    insta::assert_snapshot!(help(&["resolve"]));
}

#[test]
fn run_help() {
    insta::assert_snapshot!(help(&["run"]));
}

#[test]
fn a_usage_error_exits_2() {
    let output = toolwire().args(["call"]).output();
    let output = output.unwrap_or_else(|error| panic!("toolwire did not run: {error}"));
    assert_eq!(output.status.code(), Some(2));
    insta::assert_snapshot!(common::stderr(&output));
}
