//! What `toolwire check` tells before any call: a placeholder written into a shell string, a
//! read list that leaves the writable working folder readable, and the sandbox table's own
//! errors, each naming the key.

use super::{Case, everyone};

#[test]
fn regression_check_warns_on_a_placeholder_inside_a_shell_string_with_the_safe_form() {
    let manifest = r#"
[[tool]]
name = "echo"
description = "Echo a message"
parameters = { type = "object", properties = { msg = { type = "string" } }, required = ["msg"] }
[tool.command]
argv = ["sh", "-c", "echo {msg}"]
"#;
    let case = Case::new(everyone()[0], manifest);
    let outcome = super::outcome(case.toolwire().arg("check").output());
    let warning = outcome.text.lines().find(|line| line.contains("{msg} is written into the code"));
    let warning = warning.unwrap_or_else(|| panic!("no warning: {outcome:?}"));
    assert!(warning.contains(r#"argv = ["sh", "-c", "echo \"$1\"", "sh", "{msg}"]"#), "{warning}");
    // The warning is about injection, and so is the attack it names.
    let injected = case.call("echo", serde_json::json!({ "msg": "hi; echo INJECTED" }));
    assert!(injected.text.contains("INJECTED"), "the example is not an injection: {injected:?}");
}

#[test]
fn regression_check_says_a_read_list_does_not_bind_the_writable_working_folder() {
    let manifest = r#"
[[tool]]
name = "cat"
description = "Read a file"
parameters = { type = "object", properties = { file = { type = "string" } }, required = ["file"] }
[tool.command]
argv = ["cat", "--", "{file}"]
cwd = "."
[tool.command.sandbox]
read = ["/usr", "/lib", "/bin"]
"#;
    let case = Case::new(everyone()[0], manifest);
    let outcome = super::outcome(case.toolwire().arg("check").output());
    assert!(
        outcome.text.contains("its read list does not keep it from reading its working folder"),
        "{outcome:?}"
    );
    assert!(
        outcome.text.contains("read: the working folder (writable, so readable), /usr"),
        "{outcome:?}"
    );
}

#[test]
fn regression_the_sandbox_tables_documented_keys_are_accepted_and_errors_name_the_key() {
    let tool = "[[tool]]\nname = \"t\"\ndescription = \"t\"\n[tool.command]\nargv = [\"true\"]\n[tool.command.sandbox]\n";
    let accepted = "network = \"on\"\nfile_size = \"1 GiB\"\naddress_space = 1073741824\naccept_missing = [\"namespaces\"]\n";
    let case = Case::new(everyone()[0], &format!("{tool}{accepted}"));
    let outcome = super::outcome(case.toolwire().arg("check").output());
    assert_eq!(outcome.code, Some(0), "{outcome:?}");
    for (bad, named) in [
        ("network = \"sideways\"\n", "unknown network \"sideways\": expected \"off\" or \"on\""),
        ("file_size = \"huge\"\n", "invalid size \"huge\""),
        ("netwrk = \"on\"\n", "unknown field `netwrk`, expected one of"),
        (
            "accept_missing = [\"landlock\"]\n",
            "expected one of \"namespaces\", \"device-ioctl\", \"scopes\"",
        ),
        ("processes = \"many\"\n", "processes = \"many\""),
    ] {
        let case = Case::new(everyone()[0], &format!("{tool}{bad}"));
        let outcome = super::outcome(case.toolwire().arg("check").output());
        assert_eq!(outcome.code, Some(2), "{bad}: {outcome:?}");
        assert!(outcome.text.contains(named), "{bad}: {outcome:?}");
        assert!(!outcome.text.contains("did not match any variant"), "{bad}: {outcome:?}");
    }
}
