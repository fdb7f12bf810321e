//! The manifest's Cedar `policy`, as a user gets it: checked with the policy's line shown,
//! deciding every call with who calls (the local user, a named client), recorded in the log,
//! reloaded by `serve` when the file changes (a bad file keeps the old policies), and paired
//! with the sandbox for what a text rule cannot see.

use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use serde_json::{Value, json};

use crate::common::http::{Served, post_with};
use crate::common::{scratch, stderr, stdout, toolwire};

const DEPLOY: &str = r#"
policy = "policy.cedar"

[[tool]]
name = "deploy"
description = "Deploy to an environment"
parameters = { type = "object", properties = { env = { type = "string" } }, required = ["env"] }
[tool.command]
argv = ["echo", "deployed to {env}"]

[[tool]]
name = "billing"
[tool.command]
argv = ["echo", "billed"]
"#;

/// The README's first recipe, and a permit of billing for one named client.
const PROD_ASKS: &str = concat!(
    include_str!("../../toolwire-cedar/recipes/prod_asks.cedar"),
    "\n@id(\"finance-bills\")\npermit(principal == Client::\"finance\", action == Action::\"billing\", resource);\n"
);

/// A folder with the manifest `text` and the policy `policy`; the manifest's path.
fn folder(text: &str, policy: &str) -> PathBuf {
    let dir = scratch("policy");
    std::fs::write(dir.join("policy.cedar"), policy).expect("writes the policy");
    let manifest = dir.join("tools.toml");
    std::fs::write(&manifest, text).expect("writes the manifest");
    manifest
}

fn run(manifest: &Path, args: &[&str]) -> std::process::Output {
    toolwire().arg("-m").arg(manifest).args(args).output().expect("toolwire runs")
}

#[test]
fn check_shows_the_policy_line_of_a_misspelt_argument_and_what_no_policy_permits() {
    let misspelt =
        PROD_ASKS.replace("context.input.env == \"prod\"", "context.input.evn == \"prod\"");
    let manifest = folder(DEPLOY, &misspelt);
    let checked = run(&manifest, &["check"]);
    let said = stderr(&checked);
    assert_eq!(checked.status.code(), Some(2), "{said}");
    assert!(
        said.contains("attribute `input.evn` in context for Action::\"deploy\" not found"),
        "{said}"
    );
    assert!(said.contains("policy.cedar:8:8"), "{said}");
    assert!(said.contains("8 | when { context.input.evn == \"prod\" };"), "{said}");
    // The same policy stops every command that would use it.
    let call = run(&manifest, &["call", "deploy", "--args", r#"{"env": "staging"}"#]);
    assert_eq!(call.status.code(), Some(2), "{}", stderr(&call));

    let manifest = folder(DEPLOY, PROD_ASKS);
    let checked = run(&manifest, &["check"]);
    let said = stderr(&checked);
    assert_eq!(checked.status.code(), Some(0), "{said}");
    assert!(said.contains("note: policy: 3 policies from"), "{said}");
    // `billing` has a permit (for one client): no warning. A tool with none is named.
    assert!(!said.contains("no policy permits \"billing\""), "{said}");
    let unguarded =
        format!("{DEPLOY}\n[[tool]]\nname = \"wipe\"\n[tool.command]\nargv = [\"true\"]\n");
    let manifest = folder(&unguarded, PROD_ASKS);
    let said = stderr(&run(&manifest, &["check"]));
    assert!(
        said.contains("warning: policy: no policy permits \"wipe\": every call of it is denied"),
        "{said}"
    );
}

#[test]
fn calls_are_allowed_asked_or_denied_and_the_log_names_who_and_which_policies() {
    let manifest = folder(DEPLOY, PROD_ASKS);
    let journal = manifest.with_file_name("journal.db");
    let journal = journal.to_str().expect("a UTF-8 path");
    let at = |args: &[&str]| {
        let all: Vec<&str> =
            ["--journal", journal].into_iter().chain(args.iter().copied()).collect();
        run(&manifest, &all)
    };
    let staging = at(&["call", "deploy", "--args", r#"{"env": "staging"}"#, "--call-id", "s1"]);
    assert_eq!(
        (staging.status.code(), stdout(&staging).as_str()),
        (Some(0), "deployed to staging\n")
    );
    let prod = at(&["call", "deploy", "--args", r#"{"env": "prod"}"#, "--call-id", "p1"]);
    assert_eq!(prod.status.code(), Some(3), "parked for approval: {}", stderr(&prod));
    // The local user is no finance client: billing is denied, saying so.
    let billing = at(&["call", "billing", "--call-id", "b1"]);
    assert_eq!(billing.status.code(), Some(1));
    assert!(stderr(&billing).contains("no policy permits user "), "{}", stderr(&billing));
    let log = stdout(&at(&["log"]));
    let rows: Vec<Vec<&str>> = log.lines().map(|line| line.split('\t').collect()).collect();
    let decided: Vec<(&str, &str, &str)> = rows.iter().map(|r| (r[2], r[5], r[6])).collect();
    assert_eq!(
        decided,
        [
            ("deploy", "allowed by staging", "ok"),
            ("deploy", "asked by prod-asks", "pending"),
            ("billing", "denied", "failed"),
        ],
        "{log}"
    );
    assert!(rows.iter().all(|r| r[4].starts_with("user ")), "{log}");
    let json = stdout(&at(&["log", "--json"]));
    let first: Value = serde_json::from_str(json.lines().next().unwrap_or("{}")).expect("JSON");
    assert_eq!(first["policy"], json!({"outcome": "allowed", "policies": ["staging"]}));
    assert_eq!(first["principal"]["kind"], "user");
}

/// Reads files under `docs/` beside the manifest, from a working folder of its own: the
/// policy admits `docs/` paths, the sandbox can read only `docs/` (and the system).
const READER: &str = r#"
policy = "policy.cedar"

[[tool]]
name = "read_file"
description = "Read a documentation file"
read_only = true
parameters = { type = "object", properties = { path = { type = "string" } }, required = ["path"] }
[tool.command]
argv = ["/usr/bin/cat", "../{path}"]
cwd = "work"
[tool.command.sandbox]
read = ["/usr", "/lib", "/etc", "docs"]
"#;

/// The README's second recipe.
const DOCS_ONLY: &str = include_str!("../../toolwire-cedar/recipes/docs_only.cedar");

#[test]
fn the_path_recipe_with_the_sandbox_holds_against_paths_that_only_look_like_docs() {
    let manifest = folder(READER, DOCS_ONLY);
    let dir = manifest.parent().expect("a folder").to_owned();
    std::fs::create_dir_all(dir.join("docs")).expect("docs");
    std::fs::create_dir_all(dir.join("work")).expect("work");
    std::fs::write(dir.join("docs/guide.md"), "the guide\n").expect("a doc");
    std::fs::write(dir.join("secrets.txt"), "TOP SECRET\n").expect("a secret");
    std::os::unix::fs::symlink("../secrets.txt", dir.join("docs/link")).expect("a symlink");
    let read = |path: &str| {
        let args = json!({ "path": path }).to_string();
        let output = run(&manifest, &["call", "read_file", "--args", &args]);
        let both = format!("{}{}", stdout(&output), stderr(&output));
        assert!(!both.contains("TOP SECRET"), "{path:?} leaked the secret: {both}");
        (output.status.code(), both)
    };
    assert_eq!(read("docs/guide.md"), (Some(0), "the guide\n".to_owned()));
    // The policy sees only text: a symlink under docs/ passes it, and the sandbox, which
    // checks the resolved file, refuses it.
    let (exit, said) = read("docs/link");
    assert_eq!(exit, Some(1), "{said}");
    assert!(said.contains("Permission denied"), "{said}");
    let (exit, said) = read("docs/../secrets.txt");
    assert_eq!(exit, Some(1));
    assert!(said.contains("a path may not contain .."), "{said}");
    for path in [
        "Docs/guide.md",
        "d\u{043e}cs/guide.md",
        "secrets.txt",
        "/etc/passwd",
        "docs%2f..%2fsecrets.txt",
    ] {
        let (exit, said) = read(path);
        assert_eq!(exit, Some(1), "{path:?}: {said}");
        let refused = said.contains("no policy permits") || said.contains("may not contain ..");
        assert!(refused, "{path:?}: {said}");
    }
    // Encoded dots are no parent folder to the file system: a missing file, nothing read.
    let (exit, said) = read("docs/%2e%2e/secrets.txt");
    assert_eq!(exit, Some(1), "{said}");
    assert!(said.contains("No such file"), "{said}");
}

/// A 2026-07-28 `tools/call` with a bearer token, from a client that also claims to be
/// `finance` in a header and in `_meta`; the reply, with its HTTP status line as `status`.
fn call_as(port: u16, token: &str, tool: &str, arguments: Value) -> Value {
    let body = json!({"jsonrpc": "2.0", "id": 1, "method": "tools/call", "params": {
        "name": tool, "arguments": arguments,
        "_meta": {
            "io.modelcontextprotocol/protocolVersion": "2026-07-28",
            "io.modelcontextprotocol/clientCapabilities": {},
            "principal": "finance",
        }
    }});
    let headers =
        [("Authorization", format!("Bearer {token}")), ("X-Toolwire-User", "finance".to_owned())];
    let (status, mut reply) = post_with(port, ("tools/call", tool), &body.to_string(), &headers);
    reply["status"] = json!(status);
    reply
}

fn failed(reply: &Value) -> bool {
    reply["result"]["isError"] == json!(true)
}

#[test]
fn serve_names_clients_from_the_users_file_and_reloads_the_policy_when_it_changes() {
    let manifest = folder(DEPLOY, PROD_ASKS);
    let users = manifest.with_file_name("users.toml");
    let add = |name: &str| {
        let added =
            toolwire().args(["users", "add", name, "--file"]).arg(&users).output().expect("runs");
        assert_eq!(added.status.code(), Some(0), "{}", stderr(&added));
        stdout(&added).trim().to_owned()
    };
    let (finance, ci) = (add("finance"), add("ci"));
    let kept = std::fs::read_to_string(&users).expect("the users file");
    assert!(!kept.contains(&finance) && !kept.contains(&ci), "tokens are kept hashed: {kept}");
    use std::os::unix::fs::PermissionsExt;
    let mode = std::fs::metadata(&users).expect("exists").permissions().mode() & 0o777;
    assert_eq!(mode, 0o600);
    let again =
        toolwire().args(["users", "add", "ci", "--file"]).arg(&users).output().expect("runs");
    assert_eq!(again.status.code(), Some(2), "a taken name is refused");

    let users_flag = users.to_str().expect("UTF-8");
    let served = Served::start_with_args(&manifest, &[], &["--users", users_flag]);
    let port = served.port;
    assert!(!failed(&call_as(port, &finance, "billing", json!({}))), "finance bills");
    // ci claims to be finance in a header and in _meta: only its token counts.
    assert!(failed(&call_as(port, &ci, "billing", json!({}))), "ci may not bill");
    assert!(
        call_as(port, "not-a-token", "billing", json!({}))["status"]
            .as_str()
            .unwrap_or("")
            .contains("401")
    );

    // A policy file replaced by an invalid one mid-serve: the old policies stay in force.
    let policy = manifest.with_file_name("policy.cedar");
    std::fs::write(&policy, "permit(principal, action, resource) when { context.input.evn };")
        .expect("writes");
    std::thread::sleep(Duration::from_millis(2500));
    assert!(!failed(&call_as(port, &finance, "billing", json!({}))), "the old policies stand");
    assert!(failed(&call_as(port, &ci, "billing", json!({}))), "the old policies stand");
    // A valid one is put in force within seconds.
    let frozen = "@id(\"frozen\") @reason(\"billing is frozen\") forbid(principal, action == Action::\"billing\", resource);\n";
    std::fs::write(&policy, format!("{PROD_ASKS}\n{frozen}")).expect("writes");
    let deadline = Instant::now() + Duration::from_secs(15);
    loop {
        let reply = call_as(port, &finance, "billing", json!({}));
        if failed(&reply) {
            assert!(reply.to_string().contains("billing is frozen"), "{reply}");
            break;
        }
        assert!(Instant::now() < deadline, "the new policy was not put in force");
        std::thread::sleep(Duration::from_millis(200));
    }
}
