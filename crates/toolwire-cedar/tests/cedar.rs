//! Cedar policies through a registry: the recipes, the checks at seal, the principal, the
//! failures that fail closed, and reloading.

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use std::time::Duration;

use serde_json::{Value, json};
use toolwire::policy::PolicyOutcome;
use toolwire::{
    Answer, FailureKind, Principal, Receipt, Registry, SealErrorKind, Tool, ToolResult,
};
use toolwire_cedar::{CedarErrorKind, CedarPolicy};

fn tool(name: &str, parameters: Value) -> toolwire::ToolBuilder {
    Tool::define(name)
        .parameters(parameters)
        .execute_sync(|args: Value, _| ToolResult::ok(args, "ran"))
}

fn deploy() -> Tool {
    let params = json!({"type": "object", "properties": {
        "env": {"type": "string", "enum": ["staging", "prod"]},
        "replicas": {"type": "integer"},
        "region": {"type": "string"},
    }, "required": ["env"]});
    tool("deploy", params).build().unwrap()
}

fn read_file() -> Tool {
    let params =
        json!({"type": "object", "properties": {"path": {"type": "string"}}, "required": ["path"]});
    tool("read_file", params).read_only(true).build().unwrap()
}

fn registry(policy: &str, tools: Vec<Tool>) -> Registry {
    let policy = CedarPolicy::from_text(policy).unwrap();
    tools.into_iter().fold(Registry::builder(), |b, t| b.register(t)).policy(policy).seal().unwrap()
}

fn decided(receipt: &Receipt) -> (Option<PolicyOutcome>, Vec<String>) {
    let policy = receipt.policy.as_deref();
    (
        policy.map(|p| p.outcome),
        policy.map_or(vec![], |p| p.policies.iter().map(|s| s.to_string()).collect()),
    )
}

/// The README's first recipe.
const PROD_ASKS: &str = include_str!("../recipes/prod_asks.cedar");

#[tokio::test]
async fn recipe_staging_runs_production_asks_and_the_approval_runs_once() {
    let registry = registry(PROD_ASKS, vec![deploy()]);
    let staging = registry.invoke("deploy", json!({"env": "staging"})).await;
    assert!(staging.result.is_success(), "{:?}", staging.result);
    assert_eq!(decided(&staging), (Some(PolicyOutcome::Allowed), vec!["staging".into()]));

    let prod = registry.invoke("deploy", json!({"env": "prod"})).call_id("c1").await;
    let request = prod.result.pending_request().expect("production asks").clone();
    assert_eq!(request.prompt, "Deploy to production?");
    assert_eq!(request.data.as_ref().unwrap()["policies"], json!(["prod-asks"]));
    assert_eq!(decided(&prod), (Some(PolicyOutcome::Asked), vec!["prod-asks".into()]));

    let answer = Answer::accept(request.id.clone(), Value::Null);
    let approved = registry
        .invoke("deploy", json!({"env": "prod"}))
        .call_id("c1")
        .answer(answer.clone())
        .await;
    assert!(approved.result.is_success(), "{:?}", approved.result);
    assert_eq!(decided(&approved).0, Some(PolicyOutcome::Approved));
    let again =
        registry.invoke("deploy", json!({"env": "prod"})).call_id("c1").answer(answer).await;
    assert_eq!(again.result.failure_kind(), Some(FailureKind::Denied), "spent once");

    // The approval is bound to its arguments: it does not open a staging call... or any other.
    let other = Answer::accept(request.id, Value::Null);
    let swapped = registry
        .invoke("deploy", json!({"env": "prod", "replicas": 9}))
        .call_id("c1")
        .answer(other)
        .await;
    assert_eq!(swapped.result.failure_kind(), Some(FailureKind::Denied));
}

#[tokio::test]
async fn no_permit_denies_saying_so_and_a_forbid_gives_its_reason() {
    let policy = r#"
        @id("reads") permit(principal, action == Action::"read_file", resource);
        @id("no-secrets") @reason("secrets are off limits")
        forbid(principal, action == Action::"read_file", resource)
        when { context.input.path like "*secret*" };
    "#;
    let registry = registry(policy, vec![deploy(), read_file()]);
    let denied = registry
        .invoke("deploy", json!({"env": "staging"}))
        .principal(Principal::client("ci"))
        .await;
    assert_eq!(denied.result.failure_kind(), Some(FailureKind::Denied));
    let text = denied.result.text().unwrap_or_default();
    assert!(text.contains("no policy permits client ci to call \"deploy\""), "{text}");
    assert_eq!(decided(&denied), (Some(PolicyOutcome::Denied), vec![]));

    let secret = registry.invoke("read_file", json!({"path": "a/secret.txt"})).await;
    assert!(
        secret.result.text().unwrap_or_default().contains("secrets are off limits"),
        "{:?}",
        secret.result
    );
    assert_eq!(decided(&secret), (Some(PolicyOutcome::Denied), vec!["no-secrets".into()]));
}

/// The README's second recipe.
const DOCS_ONLY: &str = include_str!("../recipes/docs_only.cedar");

#[tokio::test]
async fn recipe_path_prefix_refuses_what_only_looks_like_docs() {
    let registry = registry(DOCS_ONLY, vec![read_file()]);
    let ok = registry.invoke("read_file", json!({"path": "docs/guide.md"})).await;
    assert!(ok.result.is_success(), "{:?}", ok.result);
    for path in [
        "docs/../secrets.txt",
        "docs/sub/../../secrets.txt",
        "Docs/guide.md",
        "DOCS/guide.md",
        "./docs/guide.md",
        "/docs/guide.md",
        "d\u{043e}cs/guide.md",          // a Cyrillic o
        "docs\u{2215}..\u{2215}secrets", // not a slash: one name, outside docs/
        "secrets.txt",
        "",
    ] {
        let receipt = registry.invoke("read_file", json!({"path": path})).await;
        let refused = receipt.result.failure_kind() == Some(FailureKind::Denied);
        let inside = path.starts_with("docs/") && !path.contains("..");
        assert!(refused || inside, "{path:?} was allowed: {:?}", receipt.result);
    }
}

#[tokio::test]
async fn recipe_read_only_tools_of_one_server() {
    let policy = include_str!("../recipes/server_reads.cedar");
    let list = tool("github__list_issues", json!({"type": "object"}))
        .server("github")
        .read_only(true)
        .build()
        .unwrap();
    let close =
        tool("github__close_issue", json!({"type": "object"})).server("github").build().unwrap();
    let local = tool("local_read", json!({"type": "object"})).read_only(true).build().unwrap();
    let registry = registry(policy, vec![list, close, local]);
    let bot = Principal::client("ci-bot");
    let listed = registry.invoke("github__list_issues", json!({})).principal(bot.clone()).await;
    assert!(listed.result.is_success());
    let other =
        registry.invoke("github__list_issues", json!({})).principal(Principal::client("x")).await;
    assert_eq!(other.result.failure_kind(), Some(FailureKind::Denied), "another client");
    for denied in ["github__close_issue", "local_read"] {
        let receipt = registry.invoke(denied, json!({})).principal(bot.clone()).await;
        assert_eq!(receipt.result.failure_kind(), Some(FailureKind::Denied), "{denied}");
    }
}

#[tokio::test]
async fn the_principal_is_the_host_s_never_the_caller_s_claim() {
    let policy = r#"
        @id("billing-for-finance")
        permit(principal == Client::"finance", action == Action::"deploy", resource);
    "#;
    let registry = registry(policy, vec![deploy()]);
    let finance = registry
        .invoke("deploy", json!({"env": "prod"}))
        .principal(Principal::client("finance"))
        .await;
    assert!(finance.result.is_success());
    // A client named otherwise, a user of the same name, or none at all: refused, whatever
    // the arguments claim.
    for who in [
        Some(Principal::client("finance ")),
        Some(Principal::user("finance")),
        Some(Principal::agent("finance")),
        None,
    ] {
        let mut call = registry.invoke(
            "deploy",
            json!({"env": "prod", "principal": "finance", "_meta": {"user": "finance"}}),
        );
        if let Some(who) = who.clone() {
            call = call.principal(who);
        }
        let receipt = call.await;
        assert_eq!(receipt.result.failure_kind(), Some(FailureKind::Denied), "{who:?}");
    }
}

#[test]
fn a_misspelt_argument_fails_the_seal_with_the_policy_line() {
    let policy = "@id(\"prod\")\npermit(principal, action == Action::\"deploy\", resource)\nwhen { context.input.evn == \"prod\" };\n";
    let err = Registry::builder()
        .register(deploy())
        .policy(CedarPolicy::from_text(policy).unwrap())
        .seal()
        .unwrap_err();
    assert_eq!(err.kind(), SealErrorKind::Policy);
    let text = err.to_string();
    assert!(text.contains("evn") && text.contains("policy.cedar:3:"), "{text}");
    assert!(text.contains("3 | when { context.input.evn == \"prod\" };"), "{text}");
}

#[test]
fn wrong_types_unknown_tools_and_unguarded_optional_arguments_are_check_errors() {
    let cases = [
        (
            "permit(principal, action == Action::\"deploy\", resource) when { context.input.replicas == \"3\" };",
            "replicas",
        ),
        ("permit(principal, action == Action::\"deplyo\", resource);", "deplyo"),
        (
            "permit(principal, action == Action::\"deploy\", resource) when { context.input.region == \"eu\" };",
            "region",
        ),
        // One action for every tool: an argument of one tool is not on the others.
        ("permit(principal, action, resource) when { context.input.env == \"prod\" };", "env"),
        ("permit(principal, action, resource) when { resource.owner == \"me\" };", "owner"),
    ];
    for (text, word) in cases {
        let policy = CedarPolicy::from_text(text).unwrap();
        let err = policy.check_tools(&[deploy(), read_file()]).unwrap_err();
        assert_eq!(err.kind(), CedarErrorKind::Validate, "{text}");
        assert!(err.to_string().contains(word), "{text}: {err}");
        assert_eq!(err.location().map(|l| l.1), Some(1), "{err}");
    }
    // With a `has` guard, the optional argument checks.
    let guarded = "permit(principal, action == Action::\"deploy\", resource) when { context has input && context.input has region && context.input.region == \"eu\" };";
    CedarPolicy::from_text(guarded).unwrap().check_tools(&[deploy()]).unwrap();
}

#[test]
fn the_report_lists_unpermitted_tools_and_hidden_arguments() {
    let odd =
        tool("odd", json!({"type": "object", "properties": {"any": {}, "n": {"type": "integer"}}}))
            .build()
            .unwrap();
    let policy = CedarPolicy::from_text(PROD_ASKS).unwrap();
    let report = policy.check_tools(&[deploy(), read_file(), odd]).unwrap();
    assert_eq!(report.policies, 2);
    assert_eq!(report.unpermitted, ["odd", "read_file"]);
    assert_eq!(report.hidden, [("odd".to_owned(), "any".to_owned())]);
}

#[tokio::test]
async fn what_cedar_cannot_hold_or_evaluate_fails_closed() {
    let sized = tool("size", json!({"type": "object", "properties": {"n": {"type": "integer"}, "x": {"type": "number"}}})).build().unwrap();
    let policy = r#"
        @id("all") permit(principal, action, resource);
        @id("huge") forbid(principal, action == Action::"size", resource)
        when { context.input has n && context.input.n * 1000000000 > 5 };
        @id("tiny") forbid(principal, action == Action::"size", resource)
        when { context.input has x && context.input.x.lessThan(decimal("0.0001")) };
    "#;
    let registry = registry(policy, vec![sized]);
    assert!(registry.invoke("size", json!({"x": 1.5})).await.result.is_success());
    // The forbid overflows: it might have denied, so the call is denied.
    let overflow = registry.invoke("size", json!({"n": 9_000_000_000_000_000i64})).await;
    assert_eq!(overflow.result.failure_kind(), Some(FailureKind::Denied));
    assert!(
        overflow.result.text().unwrap_or_default().contains("`huge` could not be evaluated"),
        "{:?}",
        overflow.result
    );
    // A number finer than Cedar's decimal would be rounded: refused instead.
    let fine = registry.invoke("size", json!({"x": 0.00001})).await;
    assert_eq!(fine.result.failure_kind(), Some(FailureKind::Denied));
    assert!(fine.result.text().unwrap_or_default().contains("/x"), "{:?}", fine.result);
}

#[tokio::test]
async fn reload_keeps_the_old_policies_when_the_new_file_is_invalid() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("policy.cedar");
    std::fs::write(&path, PROD_ASKS).unwrap();
    let policy = CedarPolicy::from_file(&path).unwrap();
    let registry = Registry::builder().register(deploy()).policy(policy.clone()).seal().unwrap();
    assert!(registry.invoke("deploy", json!({"env": "staging"})).await.result.is_success());

    for broken in [
        "permit(principal, action, resource",
        "permit(principal, action == Action::\"deploy\", resource) when { context.input.evn == \"x\" };",
    ] {
        std::fs::write(&path, broken).unwrap();
        let err = policy.reload().unwrap_err();
        assert!(err.location().is_some_and(|l| l.0.ends_with("policy.cedar")), "{err}");
        assert!(
            registry.invoke("deploy", json!({"env": "staging"})).await.result.is_success(),
            "old policies stay"
        );
    }
    std::fs::write(&path, "@id(\"frozen\") @reason(\"frozen\") forbid(principal, action, resource);\npermit(principal, action, resource);").unwrap();
    assert_eq!(policy.reload().unwrap(), 2);
    let frozen = registry.invoke("deploy", json!({"env": "staging"})).await;
    assert_eq!(decided(&frozen), (Some(PolicyOutcome::Denied), vec!["frozen".into()]));
}

#[tokio::test]
async fn a_watch_reloads_a_changed_folder_and_reports_a_bad_file() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("a.cedar"), PROD_ASKS).unwrap();
    let policy = CedarPolicy::from_file(dir.path()).unwrap();
    let registry = Registry::builder().register(deploy()).policy(policy.clone()).seal().unwrap();
    let (tx, mut rx) = tokio::sync::mpsc::unbounded_channel();
    let _watch = policy.watch(Duration::from_millis(20), move |outcome| {
        let _ = tx.send(outcome.map_err(|e| e.to_string()));
    });
    tokio::time::sleep(Duration::from_millis(50)).await;
    std::fs::write(dir.path().join("b.cedar"), "@id(\"stop\") forbid(principal, action, resource)")
        .unwrap();
    let bad = tokio::time::timeout(Duration::from_secs(10), rx.recv()).await.unwrap().unwrap();
    assert!(bad.unwrap_err().contains("b.cedar"));
    assert!(registry.invoke("deploy", json!({"env": "staging"})).await.result.is_success());
    std::fs::write(
        dir.path().join("b.cedar"),
        "@id(\"stop\") forbid(principal, action, resource);",
    )
    .unwrap();
    let good = tokio::time::timeout(Duration::from_secs(10), rx.recv()).await.unwrap().unwrap();
    assert_eq!(good, Ok(3));
    let stopped = registry.invoke("deploy", json!({"env": "staging"})).await;
    assert_eq!(decided(&stopped), (Some(PolicyOutcome::Denied), vec!["stop".into()]));
}
