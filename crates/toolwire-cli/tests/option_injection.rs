//! Arguments that try to pass themselves off as options: a value starting with `-` where the
//! program reads options is refused, unless the manifest says otherwise.

use std::path::{Path, PathBuf};

use crate::common::{manifest, stderr, stdout, toolwire};
use predicates::str::contains;

/// A `sort` tool over `{file}`, with `argv` written as given, in a folder of its own (`sort`
/// runs there, so a relative `--output` lands in it).
fn sort_tool(argv: &str, extra: &str) -> PathBuf {
    let path = manifest(&format!(
        "[[tool]]\nname = \"sort\"\n\
         parameters = {{ type = \"object\", properties = {{ file = {{ type = \"string\" }} }}, required = [\"file\"] }}\n\
         [tool.command]\nargv = {argv}\ncwd = \".\"\n{extra}"
    ));
    std::fs::write(folder(&path).join("input.txt"), "b\na\n")
        .unwrap_or_else(|e| panic!("cannot write the input: {e}"));
    path
}

fn folder(manifest: &Path) -> PathBuf {
    manifest.parent().map(Path::to_path_buf).unwrap_or_default()
}

fn call_sort(manifest: &Path, file: &str) -> std::process::Output {
    toolwire()
        .args(["call", "sort", "--args", &serde_json::json!({ "file": file }).to_string(), "-m"])
        .arg(manifest)
        .output()
        .unwrap_or_else(|e| panic!("toolwire did not run: {e}"))
}

#[test]
fn regression_an_option_value_in_a_placeholder_made_sort_write_a_file() {
    let path = sort_tool(r#"["sort", "{file}"]"#, "");
    let output = call_sort(&path, "--output=written-by-sort");
    assert_eq!(output.status.code(), Some(1), "{}", stderr(&output));
    let said = stderr(&output);
    assert!(said.contains(r#"refused the call of "sort""#), "{said}");
    assert!(said.contains(r#"the value "--output=written-by-sort" of {file}"#), "{said}");
    assert!(said.contains(r#"allow_option_values = ["file"]"#), "{said}");
    assert!(!folder(&path).join("written-by-sort").exists(), "sort wrote the file");
}

#[test]
fn after_a_double_dash_the_value_is_a_file_name() {
    let path = sort_tool(r#"["sort", "--", "{file}"]"#, "");
    let output = call_sort(&path, "--output=written-by-sort");
    // `sort` looked for a file of that name, and wrote nothing.
    assert_eq!(output.status.code(), Some(1), "{}", stderr(&output));
    let said = stderr(&output);
    assert!(said.contains("cannot read") && said.contains("--output=written-by-sort"), "{said}");
    assert!(!folder(&path).join("written-by-sort").exists(), "sort wrote the file");
    let plain = call_sort(&path, "input.txt");
    assert_eq!(stdout(&plain), "a\nb\n", "{}", stderr(&plain));
}

#[test]
fn a_placeholder_allowed_to_take_options_passes_them() {
    let path =
        sort_tool(r#"["sort", "{file}", "input.txt"]"#, "allow_option_values = [\"file\"]\n");
    let output = call_sort(&path, "--reverse");
    assert_eq!(stdout(&output), "b\na\n", "{}", stderr(&output));
    let all = sort_tool(r#"["sort", "{file}", "input.txt"]"#, "allow_option_values = true\n");
    assert_eq!(stdout(&call_sort(&all, "-r")), "b\na\n");
}

#[test]
fn a_value_that_only_follows_text_in_its_element_is_not_refused() {
    let path = sort_tool(r#"["sort", "./{file}"]"#, "");
    let output = call_sort(&path, "-input.txt");
    assert_eq!(output.status.code(), Some(1), "{}", stderr(&output));
    let said = stderr(&output);
    assert!(said.contains("cannot read") && said.contains("./-input.txt"), "{said}");
}

#[test]
fn a_value_that_begins_an_element_with_text_after_it_is_refused() {
    let path = sort_tool(r#"["sort", "{file}.txt"]"#, "");
    let output = call_sort(&path, "--output=x");
    assert_eq!(output.status.code(), Some(1));
    assert!(stderr(&output).contains("refused the call"), "{}", stderr(&output));
    assert!(!folder(&path).join("x.txt").exists(), "sort wrote the file");
}

#[test]
fn a_negative_number_is_refused_in_option_position_too() {
    let path = manifest(
        "[[tool]]\nname = \"head\"\n\
         parameters = { type = \"object\", properties = { n = { type = \"integer\" } } }\n\
         [tool.command]\nargv = [\"echo\", \"{n}\"]\n",
    );
    toolwire()
        .args(["call", "head", "--args", r#"{"n": -5}"#, "-m"])
        .arg(&path)
        .assert()
        .code(1)
        .stderr(contains(r#"the value "-5" of {n}"#));
}

#[test]
fn an_unknown_name_in_allow_option_values_is_a_manifest_error() {
    let path = sort_tool(r#"["sort", "{file}"]"#, "allow_option_values = [\"fiel\"]\n");
    toolwire()
        .args(["check", "-m"])
        .arg(&path)
        .assert()
        .code(2)
        .stderr(contains(r#"allow_option_values names "fiel", which is not a placeholder"#));
    let wrong = sort_tool(r#"["sort", "{file}"]"#, "allow_option_values = \"file\"\n");
    toolwire()
        .args(["check", "-m"])
        .arg(&wrong)
        .assert()
        .code(2)
        .stderr(contains("expected true, false, or a list of placeholder names"));
}

#[test]
fn check_warns_of_a_placeholder_in_option_position() {
    let path = manifest(
        "[[tool]]\nname = \"s\"\n\
         parameters = { type = \"object\", properties = { file = { type = \"string\" }, order = { enum = [\"asc\", \"desc\"] }, n = { type = \"integer\", minimum = 0 }, other = { type = \"string\" } } }\n\
         [tool.command]\nargv = [\"echo\", \"{file}\", \"{order}\", \"{n}\", \"--\", \"{other}\"]\n\n\
         [[tool]]\nname = \"t\"\n\
         parameters = { type = \"object\", properties = { file = { type = \"string\" } } }\n\
         [tool.command]\nargv = [\"echo\", \"{file}\"]\nallow_option_values = true\n",
    );
    let output =
        toolwire().args(["check", "-m"]).arg(&path).output().unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(output.status.code(), Some(0), "{}", stderr(&output));
    let said = stderr(&output);
    assert!(
        said.contains(r#"warning: "s": {file} stands alone in option position: a value starting with "-" is refused at call time"#),
        "{said}"
    );
    assert!(
        said.contains(r#"note: "t": {file} stands alone in option position and may take"#),
        "{said}"
    );
    assert!(said.contains("0 errors, 1 warning"), "only {{file}} of \"s\" is exposed: {said}");
}
