//! The policy step: approvals bound to the exact call, and registry policies.

use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};

use serde_json::{Value, json};
use toolwire::policy::{ApprovalKey, Decision};
use toolwire::{Answer, FailureKind, Registry, Request, Tool, ToolCall, ToolContext, ToolResult};

/// A `deploy` tool that needs approval, counting its runs and keeping the answers it saw.
fn deploy(runs: &Arc<AtomicUsize>, seen: &Arc<Mutex<Vec<Option<Answer>>>>) -> Tool {
    let (runs, seen) = (Arc::clone(runs), Arc::clone(seen));
    Tool::define("deploy")
        .parameters(json!({"type": "object", "properties": {"env": {"type": "string"}}}))
        .needs_approval(true)
        .execute_sync(move |args: Value, ctx: ToolContext| {
            runs.fetch_add(1, Ordering::SeqCst);
            seen.lock().unwrap().push(ctx.answer().cloned());
            ToolResult::ok(args, "deployed")
        })
        .build()
        .unwrap()
}

struct Fixture {
    registry: Registry,
    runs: Arc<AtomicUsize>,
    seen: Arc<Mutex<Vec<Option<Answer>>>>,
}

fn fixture() -> Fixture {
    let (runs, seen) = (Arc::default(), Arc::default());
    let registry = Registry::builder().register(deploy(&runs, &seen)).seal().unwrap();
    Fixture { registry, runs, seen }
}

/// The approval request of a first call of `deploy` with `env`, as call `call_id`.
async fn ask(registry: &Registry, env: &str, call_id: &str) -> Request {
    let receipt = registry.invoke("deploy", json!({"env": env})).call_id(call_id).await;
    assert_eq!(receipt.result.failure_kind(), Some(FailureKind::Pending));
    receipt.result.pending_request().cloned().expect("a pending request")
}

async fn resume(registry: &Registry, env: &str, call_id: &str, answer: Answer) -> ToolResult {
    registry.invoke("deploy", json!({"env": env})).call_id(call_id).answer(answer).await.result
}

#[tokio::test]
async fn a_tool_that_needs_approval_parks_until_an_answer_accepts_that_very_call() {
    let f = fixture();
    let request = ask(&f.registry, "prod", "c1").await;
    assert_eq!(f.runs.load(Ordering::SeqCst), 0, "nothing ran before approval");
    assert_eq!(request.kind, "approval");
    assert!(request.id.starts_with("apr-"), "{}", request.id);
    assert_eq!(request.digest.as_ref().map(String::len), Some(64));
    assert_eq!(request.data, Some(json!({"tool": "deploy", "arguments": {"env": "prod"}})));

    let done = resume(&f.registry, "prod", "c1", Answer::accept(request.id, json!(null))).await;
    assert!(done.is_success(), "{done:?}");
    assert_eq!(f.runs.load(Ordering::SeqCst), 1);
    assert_eq!(
        *f.seen.lock().unwrap(),
        vec![None],
        "the approval is the policy's, not the handler's"
    );
}

#[tokio::test]
async fn the_same_arguments_in_another_key_order_are_the_same_call() {
    let f = fixture();
    let tool = Tool::define("two")
        .needs_approval(true)
        .execute_sync(|_, _| ToolResult::ok(json!({}), "ok"))
        .build()
        .unwrap();
    let registry = Registry::builder().register(tool).seal().unwrap();
    let first = registry.invoke("two", json!({"a": 1, "b": 2})).call_id("c").await;
    let id = first.result.pending_request().unwrap().id.clone();
    let again = registry
        .invoke("two", serde_json::from_str(r#"{"b": 2, "a": 1}"#).unwrap())
        .call_id("c")
        .answer(Answer::accept(id, json!(null)))
        .await;
    assert!(again.result.is_success());
    drop(f);
}

#[tokio::test]
async fn a_declined_approval_denies_the_call_with_its_reason() {
    let f = fixture();
    let request = ask(&f.registry, "prod", "c1").await;
    let result = resume(&f.registry, "prod", "c1", Answer::decline(request.id, "not today")).await;
    assert_eq!(result.failure_kind(), Some(FailureKind::Denied));
    assert!(result.text().unwrap().ends_with("approval was declined: not today"));
    assert_eq!(f.runs.load(Ordering::SeqCst), 0);
}

/// Each answer that does not match fails closed as `Denied`, says what did not match, and
/// runs nothing.
async fn refused(f: &Fixture, env: &str, call_id: &str, answer: Answer, says: &str) {
    let result = resume(&f.registry, env, call_id, answer).await;
    assert_eq!(result.failure_kind(), Some(FailureKind::Denied), "{result:?}");
    let text = result.text().unwrap();
    assert!(text.contains(says), "{text:?} should say {says:?}");
    assert_eq!(f.runs.load(Ordering::SeqCst), 0);
}

#[tokio::test]
async fn regression_an_approval_with_a_forged_id_is_denied() {
    let f = fixture();
    let request = ask(&f.registry, "prod", "c1").await;
    // Same shape, same digest hint, a tag this registry never made.
    let mut forged = request.id.clone();
    let last = forged.pop().unwrap();
    forged.push(if last == '0' { '1' } else { '0' });
    refused(&f, "prod", "c1", Answer::accept(forged, json!(null)), "not issued by this registry")
        .await;
    refused(&f, "prod", "c1", Answer::accept("req-123", json!(null)), "not an approval").await;
}

#[tokio::test]
async fn regression_an_approval_with_an_empty_id_is_denied() {
    let f = fixture();
    ask(&f.registry, "prod", "c1").await;
    refused(&f, "prod", "c1", Answer::accept("", json!(null)), "empty id").await;
}

#[tokio::test]
async fn regression_an_approval_replayed_for_other_arguments_or_another_call_is_denied() {
    let f = fixture();
    let request = ask(&f.registry, "staging", "c1").await;
    let answer = Answer::accept(request.id, json!(null));
    refused(&f, "prod", "c1", answer.clone(), "issued for another call").await;
    refused(&f, "staging", "c2", answer.clone(), "issued for another call").await;
    // Another tool that asks nothing still refuses it: it never asked.
    let free =
        Tool::define("free").execute_sync(|_, _| ToolResult::ok(json!({}), "ran")).build().unwrap();
    let registry = Registry::builder().register(free).seal().unwrap();
    let result = registry.invoke("free", json!({})).call_id("c1").answer(answer).await.result;
    assert_eq!(result.failure_kind(), Some(FailureKind::Denied));
}

#[tokio::test]
async fn regression_an_approval_for_a_call_that_never_asked_is_denied() {
    let f = fixture();
    let other = fixture();
    let request = ask(&other.registry, "prod", "c1").await;
    // The same call on a registry with another key: this one never asked.
    refused(
        &f,
        "prod",
        "c1",
        Answer::accept(request.id, json!(null)),
        "not issued by this registry",
    )
    .await;
}

#[tokio::test]
async fn registries_that_share_a_key_resume_each_others_approvals() {
    let key = ApprovalKey::from_bytes([7; 32]);
    let make = || {
        let (runs, seen) = (Arc::default(), Arc::default());
        let tool = deploy(&runs, &seen);
        (Registry::builder().register(tool).approval_key(key).seal().unwrap(), runs)
    };
    let ((a, _), (b, runs_b)) = (make(), make());
    let request = ask(&a, "prod", "c1").await;
    assert!(resume(&b, "prod", "c1", Answer::accept(request.id, json!(null))).await.is_success());
    assert_eq!(runs_b.load(Ordering::SeqCst), 1);
}

#[tokio::test]
async fn a_registry_policy_allows_denies_or_asks_after_validation_and_before_authorize() {
    let authorized = Arc::new(AtomicUsize::new(0));
    let counter = Arc::clone(&authorized);
    let rm = Tool::define("rm")
        .parameters(json!({"type": "object", "properties": {"path": {"type": "string"}}, "required": ["path"]}))
        .authorize_sync(move |_, _| {
            counter.fetch_add(1, Ordering::SeqCst);
            Ok::<_, String>(())
        })
        .execute_sync(|_, _| ToolResult::ok(json!({}), "removed"))
        .build()
        .unwrap();
    let registry = Registry::builder()
        .register(rm)
        .policy_sync(|tool, args, _ctx| match args["path"].as_str() {
            Some("/") => Decision::Deny(format!("{} may never touch the root", tool.name())),
            Some(path) if path.starts_with("/etc") => {
                Decision::Ask(Request::new("approval", format!("remove {path}?")))
            }
            _ => Decision::Allow,
        })
        .seal()
        .unwrap();
    let invalid = registry.invoke("rm", json!({"path": 1})).await.result;
    assert_eq!(invalid.failure_kind(), Some(FailureKind::InvalidInput));
    let root = registry.invoke("rm", json!({"path": "/"})).await.result;
    assert_eq!(root.failure_kind(), Some(FailureKind::Denied));
    assert!(root.text().unwrap().contains("rm may never touch the root"));
    let etc = registry.invoke("rm", json!({"path": "/etc/x"})).call_id("c").await.result;
    let request = etc.pending_request().unwrap();
    assert_eq!(request.prompt, "remove /etc/x?");
    assert_eq!(authorized.load(Ordering::SeqCst), 0, "authorize runs after the policy");
    let tmp = registry.invoke("rm", json!({"path": "/tmp/x"})).await.result;
    assert!(tmp.is_success());
    let approved = registry
        .invoke("rm", json!({"path": "/etc/x"}))
        .call_id("c")
        .answer(Answer::accept(request.id.clone(), json!(null)))
        .await
        .result;
    assert!(approved.is_success());
    assert_eq!(authorized.load(Ordering::SeqCst), 2);
}

#[tokio::test]
async fn an_async_policy_is_raced_and_a_panicking_one_fails_the_call() {
    let echo = Tool::define("echo").execute_sync(|a, _| ToolResult::ok(a, "ok")).build().unwrap();
    let registry = Registry::builder()
        .register(echo.clone())
        .policy(|_tool, args: Value, ctx: ToolContext| async move {
            tokio::task::yield_now().await;
            match (args["who"].as_str(), ctx.call_id().map(|id| id.to_string())) {
                (Some("mallory"), _) => Decision::Deny("not mallory".into()),
                (_, Some(id)) if id == "boom" => panic!("policy service exploded"),
                _ => Decision::Allow,
            }
        })
        .seal()
        .unwrap();
    assert!(registry.invoke("echo", json!({"who": "alice"})).await.result.is_success());
    let denied = registry.invoke("echo", json!({"who": "mallory"})).await.result;
    assert_eq!(denied.failure_kind(), Some(FailureKind::Denied));
    let boom = registry.invoke("echo", json!({})).call_id("boom").await.result;
    assert_eq!(boom.failure_kind(), Some(FailureKind::Panic));
    assert!(boom.text().unwrap().contains("policy service exploded"));
}

#[tokio::test]
async fn a_handlers_own_request_still_reaches_it_without_a_policy() {
    let tool = Tool::define("ask")
        .execute_sync(|_, ctx: ToolContext| match ctx.answer() {
            None => ToolResult::pending(Request::new("input", "which?")),
            Some(answer) => ToolResult::ok(answer.data.clone(), "answered"),
        })
        .build()
        .unwrap();
    let first = tool.execute(json!({})).await;
    let id = first.pending_request().unwrap().id.clone();
    let second = tool.execute(json!({})).answer(Answer::accept(id, json!("blue"))).await;
    assert_eq!(second.json(), &json!("blue"));
}

#[tokio::test]
async fn parallel_approvals_in_one_dispatch_are_each_bound_to_their_call() {
    let f = fixture();
    let calls = vec![
        ToolCall::new("a", "deploy", json!({"env": "one"})),
        ToolCall::new("b", "deploy", json!({"env": "two"})),
    ];
    let first = f.registry.dispatch(calls.clone()).await;
    let ids: Vec<String> =
        first.iter().map(|r| r.result.pending_request().unwrap().id.clone()).collect();
    assert_ne!(ids[0], ids[1]);
    let second =
        f.registry.dispatch(calls).answer("a", Answer::accept(ids[0].clone(), json!(null))).await;
    assert!(second[0].result.is_success());
    assert_eq!(second[1].result.failure_kind(), Some(FailureKind::Pending), "b is still asked");
    assert_eq!(f.runs.load(Ordering::SeqCst), 1);
}
