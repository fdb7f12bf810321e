//! A bad manifest gets an error with its line and column, as `cargo` reports a bad
//! `Cargo.toml`. Each message is a snapshot.

use crate::common::{manifest, stderr, toolwire};

/// The stderr of `toolwire check` on `text`, with the scratch folder's path taken out.
fn check(text: &str) -> String {
    let path = manifest(text);
    let output = toolwire().args(["check", "-m"]).arg(&path).output();
    let output = output.unwrap_or_else(|error| panic!("toolwire did not run: {error}"));
    assert_eq!(output.status.code(), Some(2), "a bad manifest exits 2: {}", stderr(&output));
    stderr(&output).replace(&path.display().to_string(), "tools.toml")
}

#[test]
fn unknown_field() {
    insta::assert_snapshot!(check("[[tool]]\nname = \"x\"\ncomand = [\"echo\"]\n"));
}

#[test]
fn wrong_type() {
    insta::assert_snapshot!(check(
        "[[tool]]\nname = \"x\"\n[tool.command]\nargv = \"echo hello\"\n"
    ));
}

#[test]
fn toml_syntax() {
    insta::assert_snapshot!(check("[[tool]]\nname = \"x\"\n[tool.command]\nargv = [\"echo\"\n"));
}

#[test]
fn undeclared_placeholder() {
    insta::assert_snapshot!(check(
        "[[tool]]\nname = \"x\"\nparameters = { type = \"object\", properties = { a = { type = \"string\" } } }\n\
         [tool.command]\nargv = [\"echo\", \"--name={b}\"]\n"
    ));
}

#[test]
fn placeholder_in_the_program() {
    insta::assert_snapshot!(check(
        "[[tool]]\nname = \"x\"\nparameters = { type = \"object\", properties = { p = { type = \"string\" } } }\n\
         [tool.command]\nargv = [\"{p}\", \"-la\"]\n"
    ));
}

#[test]
fn unclosed_placeholder() {
    insta::assert_snapshot!(check(
        "[[tool]]\nname = \"x\"\n[tool.command]\nargv = [\"echo\", \"{a\"]\n"
    ));
}

#[test]
fn invalid_tool_name() {
    insta::assert_snapshot!(check(
        "[[tool]]\nname = \"bad name!\"\n[tool.command]\nargv = [\"echo\"]\n"
    ));
}

#[test]
fn invalid_parameters_schema() {
    insta::assert_snapshot!(check(
        "[[tool]]\nname = \"x\"\nparameters = { type = \"object\", properties = { a = { type = \"wrong\" } } }\n\
         [tool.command]\nargv = [\"echo\"]\n"
    ));
}

#[test]
fn duplicate_tool_name() {
    insta::assert_snapshot!(check(
        "[[tool]]\nname = \"x\"\n[tool.command]\nargv = [\"true\"]\n\n[[tool]]\nname = \"x\"\n[tool.command]\nargv = [\"false\"]\n"
    ));
}

#[test]
fn neither_command_nor_http() {
    insta::assert_snapshot!(check("[[tool]]\nname = \"x\"\ndescription = \"does nothing\"\n"));
}

#[test]
fn both_command_and_http() {
    insta::assert_snapshot!(check(
        "[[tool]]\nname = \"x\"\n[tool.command]\nargv = [\"true\"]\n[tool.http]\nurl = \"http://127.0.0.1/\"\n"
    ));
}

#[test]
fn https_url() {
    insta::assert_snapshot!(check(
        "[[tool]]\nname = \"x\"\n[tool.http]\nurl = \"https://example.invalid/\"\n"
    ));
}

#[test]
fn bad_timeout() {
    insta::assert_snapshot!(check(
        "[[tool]]\nname = \"x\"\n[tool.command]\nargv = [\"true\"]\ntimeout = \"5 parsecs\"\n"
    ));
}

#[test]
fn empty_argv() {
    insta::assert_snapshot!(check("[[tool]]\nname = \"x\"\n[tool.command]\nargv = []\n"));
}

#[test]
fn zero_concurrency() {
    insta::assert_snapshot!(check(
        "[[tool]]\nname = \"x\"\nconcurrency = 0\n[tool.command]\nargv = [\"true\"]\n"
    ));
}

#[test]
fn unknown_task_support() {
    insta::assert_snapshot!(check(
        "[[tool]]\nname = \"x\"\ntask = \"sometimes\"\n[tool.command]\nargv = [\"true\"]\n"
    ));
}

#[test]
fn oauth_on_a_command_server() {
    let text = "[mcp_servers.files]\ncommand = \"files-server\"\noauth = { client_id = \"a\" }\n";
    let shown = check(text);
    assert!(shown.contains("`oauth` applies to a server over HTTP"), "{shown}");
}

#[test]
fn oauth_secret_from_an_unset_variable() {
    let text = "[mcp_servers.docs]\nurl = \"https://docs.example/mcp\"\n\
                oauth = { client_secret_env = \"TOOLWIRE_TEST_UNSET_SECRET\" }\n";
    let shown = check(text);
    assert!(shown.contains("client_secret_env reads $TOOLWIRE_TEST_UNSET_SECRET"), "{shown}");
}
