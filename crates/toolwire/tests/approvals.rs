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
        .policy_async(|_tool, args: Value, ctx: ToolContext| async move {
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
        .asks_for_input(true)
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

/// A registry keeps the copy of the arguments a handler's request is bound with only for
/// tools that declare they ask; one that asks without declaring it must not get an unbound
/// request out, which an answer made for other arguments could then satisfy.
#[tokio::test]
async fn a_handler_that_asks_without_declaring_it_fails_its_registry_call() {
    let asking = |declared: bool| {
        Tool::define("ask")
            .asks_for_input(declared)
            .execute_sync(|_, ctx: ToolContext| match ctx.answer() {
                None => ToolResult::pending(Request::new("input", "which?")),
                Some(answer) => ToolResult::ok(answer.data.clone(), "answered"),
            })
            .build()
            .unwrap()
    };
    let undeclared = Registry::builder().register(asking(false)).seal().unwrap();
    let refused = undeclared.invoke("ask", json!({"n": 1})).call_id("c").await.result;
    assert_eq!(refused.failure_kind(), Some(FailureKind::Handler), "{refused:?}");
    let text = refused.text().unwrap_or_default();
    assert!(text.contains("asks_for_input(true)") && text.contains("which?"), "{text}");
    // Called directly, the tool hands its request back as it is.
    assert!(asking(false).execute(json!({})).await.pending_request().is_some());

    let declared = Registry::builder().register(asking(true)).seal().unwrap();
    let first = declared.invoke("ask", json!({"n": 1})).call_id("c").await.result;
    let id = first.pending_request().expect("a bound request").id.clone();
    let other = declared.invoke("ask", json!({"n": 2})).call_id("c");
    let other = other.answer(Answer::accept(id.clone(), json!("blue"))).await.result;
    assert_eq!(other.failure_kind(), Some(FailureKind::Denied), "{other:?}");
    let same = declared.invoke("ask", json!({"n": 1})).call_id("c");
    let same = same.answer(Answer::accept(id, json!("blue"))).await.result;
    assert_eq!(same.json(), &json!("blue"));
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

// ---- Single use (issue 16) ----

/// The reply of a call refused because its approval was spent before.
fn assert_already_used(result: &ToolResult) {
    assert_eq!(result.failure_kind(), Some(FailureKind::Denied), "{result:?}");
    let text = result.text().unwrap();
    assert!(text.contains("the approval was already used"), "{text:?}");
}

#[tokio::test]
async fn regression_an_approval_runs_one_call_only() {
    let f = fixture();
    let request = ask(&f.registry, "prod", "c1").await;
    let answer = Answer::accept(request.id, json!(null));
    assert!(resume(&f.registry, "prod", "c1", answer.clone()).await.is_success());
    // The same answer, the same call id, the same arguments: refused, and nothing runs.
    assert_already_used(&resume(&f.registry, "prod", "c1", answer.clone()).await);
    assert_already_used(&resume(&f.registry, "prod", "c1", answer).await);
    assert_eq!(f.runs.load(Ordering::SeqCst), 1);
}

#[tokio::test]
async fn regression_a_turn_that_repeats_an_approved_call_runs_it_once() {
    let f = fixture();
    let request = ask(&f.registry, "prod", "c1").await;
    let call = ToolCall::new("c1", "deploy", json!({"env": "prod"}));
    let receipts = f
        .registry
        .dispatch(vec![call.clone(), call.clone(), call])
        .answer("c1", Answer::accept(request.id, json!(null)))
        .await;
    let ran = receipts.iter().filter(|r| r.result.is_success()).count();
    assert_eq!(ran, 1, "{receipts:?}");
    for receipt in receipts.iter().filter(|r| !r.result.is_success()) {
        assert_already_used(&receipt.result);
    }
    assert_eq!(f.runs.load(Ordering::SeqCst), 1);
}

#[tokio::test]
async fn regression_an_approval_id_has_one_spelling() {
    let f = fixture();
    let request = ask(&f.registry, "prod", "c1").await;
    let id = request.id.clone();
    let tag_start = id.rfind('-').unwrap() + 1;
    let mut respellings = vec![
        format!("{}{}", &id[..tag_start], id[tag_start..].to_uppercase()),
        format!(" {id}"),
        format!("{id} "),
        format!("{id}-"),
        id.replacen("apr-", "APR-", 1),
    ];
    // `u8::from_str_radix` reads "+5" as 5: a sign in place of the tag's first digit.
    let first = &id[tag_start..tag_start + 2];
    if let Some(second) = first.strip_prefix('0') {
        respellings.push(format!("{}+{second}{}", &id[..tag_start], &id[tag_start + 2..]));
    }
    let digit = id[tag_start..].find(|c: char| c.is_ascii_digit()).unwrap() + tag_start;
    if digit % 2 == tag_start % 2 && &id[digit..=digit] == "0" {
        respellings.push(format!("{}+{}", &id[..digit], &id[digit + 1..]));
    }
    for spelling in respellings {
        assert_ne!(spelling, id);
        let result =
            resume(&f.registry, "prod", "c1", Answer::accept(spelling.clone(), json!(null))).await;
        assert_eq!(result.failure_kind(), Some(FailureKind::Denied), "{spelling:?}: {result:?}");
    }
    assert_eq!(f.runs.load(Ordering::SeqCst), 0, "no other spelling ran the call");
    // The one spelling it was issued in still works, once.
    assert!(resume(&f.registry, "prod", "c1", Answer::accept(id, json!(null))).await.is_success());
}

#[tokio::test]
async fn regression_an_approval_with_a_signed_tag_digit_is_refused() {
    // Each pair of the keyed tag once read through `u8::from_str_radix`, which takes "+a"
    // for 0x0a: find a pair of the tag that starts with a zero digit and sign it. A tag has
    // 16 pairs, so an id has one with probability 1 - (15/16)^16 (about 64 %); 64 ids all
    // without one happen with probability about 1 in 10^28.
    let f = fixture();
    for attempt in 0..64 {
        let call_id = format!("c{attempt}");
        let request = ask(&f.registry, "prod", &call_id).await;
        let tag_start = request.id.rfind('-').unwrap() + 1;
        let tag = &request.id.as_bytes()[tag_start..];
        let Some(pair) = (0..tag.len()).step_by(2).find(|&at| tag[at] == b'0') else {
            continue;
        };
        let zero = tag_start + pair;
        let signed = format!("{}+{}", &request.id[..zero], &request.id[zero + 1..]);
        let result =
            resume(&f.registry, "prod", &call_id, Answer::accept(signed, json!(null))).await;
        assert_eq!(result.failure_kind(), Some(FailureKind::Denied), "{result:?}");
        assert_eq!(f.runs.load(Ordering::SeqCst), 0);
        return;
    }
    panic!("no tag had a pair starting with a zero digit in 64 ids (about 1 in 10^28)");
}

#[tokio::test]
async fn approvals_lapse_after_the_registrys_time_to_live() {
    let (runs, seen) = (Arc::default(), Arc::default());
    let registry = Registry::builder()
        .register(deploy(&runs, &seen))
        .approval_ttl(std::time::Duration::from_millis(50))
        .seal()
        .unwrap();
    let request = ask(&registry, "prod", "c1").await;
    assert!(request.expires_at.is_some());
    tokio::time::sleep(std::time::Duration::from_millis(80)).await;
    let result = resume(&registry, "prod", "c1", Answer::accept(request.id, json!(null))).await;
    assert_eq!(result.failure_kind(), Some(FailureKind::Denied));
    assert!(result.text().unwrap().contains("expired at"), "{result:?}");
    assert_eq!(runs.load(Ordering::SeqCst), 0);
}

#[tokio::test]
async fn an_approval_says_when_it_lapses_one_hour_by_default() {
    let f = fixture();
    let request = ask(&f.registry, "prod", "c1").await;
    let lapses = humantime::parse_rfc3339(request.expires_at.as_deref().unwrap()).unwrap();
    let left = lapses.duration_since(std::time::SystemTime::now()).unwrap();
    assert!(
        left > std::time::Duration::from_secs(3590)
            && left <= toolwire::policy::DEFAULT_APPROVAL_TTL
    );
}

/// A store shared by registries, as a journal would be, that counts what it was asked.
#[derive(Clone, Default)]
struct SharedLedger(Arc<Mutex<Vec<String>>>);

impl toolwire::policy::ApprovalStore for SharedLedger {
    fn spend(&self, approval: toolwire::policy::SpentApproval) -> toolwire::policy::SpendFuture {
        let ledger = self.clone();
        Box::pin(async move {
            tokio::task::yield_now().await;
            let mut ids = ledger.0.lock().unwrap();
            if ids.contains(&approval.id) {
                return Err(toolwire::policy::SpendError::AlreadySpent);
            }
            ids.push(approval.id);
            Ok(())
        })
    }
}

#[tokio::test]
async fn registries_sharing_a_store_spend_an_approval_once_between_them() {
    let key = ApprovalKey::from_bytes([9; 32]);
    let ledger = SharedLedger::default();
    let runs = Arc::new(AtomicUsize::new(0));
    let make = || {
        let seen = Arc::default();
        let tool = deploy(&runs, &seen);
        Registry::builder()
            .register(tool)
            .approval_key(key)
            .approval_store(ledger.clone())
            .seal()
            .unwrap()
    };
    let (a, b) = (make(), make());
    let request = ask(&a, "prod", "c1").await;
    let answer = Answer::accept(request.id.clone(), json!(null));
    assert!(resume(&b, "prod", "c1", answer.clone()).await.is_success());
    assert_already_used(&resume(&a, "prod", "c1", answer.clone()).await);
    assert_already_used(&resume(&b, "prod", "c1", answer).await);
    assert_eq!(runs.load(Ordering::SeqCst), 1);
    assert_eq!(*ledger.0.lock().unwrap(), vec![request.id]);
}

struct BrokenStore;

impl toolwire::policy::ApprovalStore for BrokenStore {
    fn spend(&self, _: toolwire::policy::SpentApproval) -> toolwire::policy::SpendFuture {
        Box::pin(async { Err(toolwire::policy::SpendError::Store("the disk is full".into())) })
    }
}

#[tokio::test]
async fn a_store_that_cannot_record_a_spend_fails_the_call_closed() {
    let (runs, seen) = (Arc::default(), Arc::default());
    let registry = Registry::builder()
        .register(deploy(&runs, &seen))
        .approval_store(BrokenStore)
        .seal()
        .unwrap();
    let request = ask(&registry, "prod", "c1").await;
    let result = resume(&registry, "prod", "c1", Answer::accept(request.id, json!(null))).await;
    assert_eq!(result.failure_kind(), Some(FailureKind::Denied));
    assert!(result.text().unwrap().contains("could not be recorded as used: the disk is full"));
    assert_eq!(runs.load(Ordering::SeqCst), 0);
}

#[tokio::test]
async fn a_full_memory_store_refuses_more_rather_than_forget_a_live_approval() {
    let (runs, seen) = (Arc::default(), Arc::default());
    let store = Arc::new(toolwire::policy::MemoryApprovalStore::with_capacity(2));
    let registry = Registry::builder()
        .register(deploy(&runs, &seen))
        .memory_approval_store(Arc::clone(&store))
        .seal()
        .unwrap();
    for call in ["c1", "c2"] {
        let request = ask(&registry, "prod", call).await;
        assert!(
            resume(&registry, "prod", call, Answer::accept(request.id, json!(null)))
                .await
                .is_success()
        );
    }
    let request = ask(&registry, "prod", "c3").await;
    let result = resume(&registry, "prod", "c3", Answer::accept(request.id, json!(null))).await;
    assert_eq!(result.failure_kind(), Some(FailureKind::Denied));
    assert!(result.text().unwrap().contains("the most this store holds"), "{result:?}");
    assert_eq!(runs.load(Ordering::SeqCst), 2);
    assert_eq!(store.len(), 2);
}

#[tokio::test]
async fn regression_an_approval_of_a_call_without_an_id_runs_one_call() {
    let f = fixture();
    let parked = f.registry.invoke("deploy", json!({"env": "prod"})).await;
    let id = parked.result.pending_request().unwrap().id.clone();
    let answer = Answer::accept(id, json!(null));
    let first = f.registry.invoke("deploy", json!({"env": "prod"})).answer(answer.clone()).await;
    assert!(first.result.is_success());
    // A later call with no id and the same arguments does not ride on it.
    let later = f.registry.invoke("deploy", json!({"env": "prod"})).answer(answer).await;
    assert_already_used(&later.result);
    assert_eq!(f.runs.load(Ordering::SeqCst), 1);
}

// ---- A handler's own requests (issue 16) ----

/// A tool that asks which colour, and counts the runs that got an answer.
fn colour(answered: &Arc<AtomicUsize>, needs_approval: bool) -> Tool {
    let answered = Arc::clone(answered);
    Tool::define("paint")
        .asks_for_input(true)
        .parameters(json!({"type": "object", "properties": {"wall": {"type": "string"}}}))
        .needs_approval(needs_approval)
        .execute_sync(move |_, ctx: ToolContext| match ctx.answer() {
            None => ToolResult::pending(Request::new("input", "which colour?")),
            Some(answer) => {
                answered.fetch_add(1, Ordering::SeqCst);
                ToolResult::ok(answer.data.clone(), "painted")
            }
        })
        .build()
        .unwrap()
}

async fn paint(
    registry: &Registry,
    wall: &str,
    call_id: &str,
    answer: Option<Answer>,
) -> ToolResult {
    let call = registry.invoke("paint", json!({"wall": wall})).call_id(call_id);
    match answer {
        Some(answer) => call.answer(answer).await.result,
        None => call.await.result,
    }
}

#[tokio::test]
async fn regression_a_handlers_own_request_is_bound_to_its_call() {
    let answered = Arc::new(AtomicUsize::new(0));
    let registry = Registry::builder().register(colour(&answered, false)).seal().unwrap();
    let parked = paint(&registry, "north", "c1", None).await;
    let request = parked.pending_request().unwrap().clone();
    assert!(request.id.starts_with("inp-"), "{}", request.id);
    assert_eq!(request.digest.as_ref().map(String::len), Some(64));
    assert!(request.expires_at.is_some());
    let blue = Answer::accept(request.id.clone(), json!("blue"));
    // Made for the north wall of call c1: not for another wall, nor another call.
    for (wall, call) in [("south", "c1"), ("north", "c2")] {
        let result = paint(&registry, wall, call, Some(blue.clone())).await;
        assert_eq!(result.failure_kind(), Some(FailureKind::Denied), "{result:?}");
        assert!(result.text().unwrap().contains("issued for another call"));
    }
    // An id the registry never issued does not reach the handler either.
    let made_up =
        paint(&registry, "north", "c1", Some(Answer::accept("req-1", json!("red")))).await;
    assert_eq!(made_up.failure_kind(), Some(FailureKind::Denied));
    assert_eq!(answered.load(Ordering::SeqCst), 0, "the handler saw none of them");
    let done = paint(&registry, "north", "c1", Some(blue.clone())).await;
    assert_eq!(done.json(), &json!("blue"));
    assert_already_used(&paint(&registry, "north", "c1", Some(blue)).await);
    assert_eq!(answered.load(Ordering::SeqCst), 1);
}

#[tokio::test]
async fn a_call_that_needs_approval_and_then_asks_for_input_completes() {
    let answered = Arc::new(AtomicUsize::new(0));
    let registry = Registry::builder().register(colour(&answered, true)).seal().unwrap();
    let approval = paint(&registry, "north", "c1", None).await.pending_request().unwrap().clone();
    assert_eq!(approval.kind, "approval");
    let approve = Answer::accept(approval.id, json!(null));
    // Approved, the handler runs and asks its own question.
    let question = paint(&registry, "north", "c1", Some(approve.clone())).await;
    let question = question.pending_request().expect("the handler asks").clone();
    assert_eq!(question.kind, "input");
    // Its answer stands in for the approval the call already passed.
    let done =
        paint(&registry, "north", "c1", Some(Answer::accept(question.id, json!("blue")))).await;
    assert_eq!(done.json(), &json!("blue"), "{done:?}");
    assert_eq!(answered.load(Ordering::SeqCst), 1);
    // The approval was spent when the handler first ran.
    assert_already_used(&paint(&registry, "north", "c1", Some(approve)).await);
}

// ---- The deadline (issue 16) ----

/// A call of a tool behind `gated` (a registry builder given its policy) under a 20 ms
/// deadline, and how many times the tool ran.
async fn under_a_short_deadline(
    gated: impl FnOnce(toolwire::RegistryBuilder) -> toolwire::RegistryBuilder,
) -> (ToolResult, usize) {
    let runs = Arc::new(AtomicUsize::new(0));
    let counter = Arc::clone(&runs);
    let tool = Tool::define("slow_gate")
        .execute_sync(move |_, _| {
            counter.fetch_add(1, Ordering::SeqCst);
            ToolResult::ok(json!({}), "ran")
        })
        .build()
        .unwrap();
    let registry = gated(Registry::builder().register(tool)).seal().unwrap();
    let result = registry
        .invoke("slow_gate", json!({}))
        .timeout(std::time::Duration::from_millis(20))
        .await
        .result;
    (result, runs.load(Ordering::SeqCst))
}

#[tokio::test]
async fn regression_a_sync_policy_that_overruns_the_deadline_runs_nothing() {
    let (result, runs) = under_a_short_deadline(|builder| {
        builder.policy_sync(|_, _, _| {
            std::thread::sleep(std::time::Duration::from_millis(60));
            Decision::Allow
        })
    })
    .await;
    assert_eq!(result.failure_kind(), Some(FailureKind::TimedOut), "{result:?}");
    assert_eq!(runs, 0, "the handler never started");
}

#[tokio::test]
async fn regression_an_async_policy_that_blocks_past_the_deadline_runs_nothing() {
    let (result, runs) = under_a_short_deadline(|builder| {
        builder.policy_async(|_, _, _| async {
            // Blocks its thread past the deadline, then allows: the timer cannot win first.
            std::thread::sleep(std::time::Duration::from_millis(60));
            Decision::Allow
        })
    })
    .await;
    assert_eq!(result.failure_kind(), Some(FailureKind::TimedOut), "{result:?}");
    assert_eq!(runs, 0, "the handler never started");
}

#[tokio::test]
async fn every_refused_approval_is_a_receipt_in_the_audit_trail() {
    let (runs, seen) = (Arc::default(), Arc::default());
    let audit: Arc<Mutex<Vec<toolwire::Receipt>>> = Arc::default();
    let log = Arc::clone(&audit);
    let registry = Registry::builder()
        .register(deploy(&runs, &seen))
        .approval_ttl(std::time::Duration::from_millis(200))
        .on_receipt(move |receipt| log.lock().unwrap().push(receipt.clone()))
        .seal()
        .unwrap();
    let request = ask(&registry, "prod", "c1").await;
    let upper = request.id.to_uppercase().replacen("APR-", "apr-", 1);
    let mut forged = request.id.clone();
    let last = forged.pop().unwrap();
    forged.push(if last == '0' { '1' } else { '0' });
    let answer = Answer::accept(request.id.clone(), json!(null));
    assert!(resume(&registry, "prod", "c1", answer.clone()).await.is_success());
    let expiring = ask(&registry, "prod", "c2").await;
    for (call, id) in [("c1", forged), ("c1", upper), ("c1", request.id.clone())] {
        resume(&registry, "prod", call, Answer::accept(id, json!(null))).await;
    }
    tokio::time::sleep(std::time::Duration::from_millis(250)).await;
    resume(&registry, "prod", "c2", Answer::accept(expiring.id, json!(null))).await;
    let audit = audit.lock().unwrap();
    // Two parked, one run, then the forged, respelled, reused and expired answers.
    let refusals: Vec<&str> = audit[3..].iter().map(|r| r.result.text().unwrap()).collect();
    assert_eq!(audit.len(), 7, "{refusals:?}");
    for (text, says) in refusals.iter().zip([
        "not issued by this registry",
        "not an approval or a request",
        "already used",
        "expired at",
    ]) {
        assert!(text.contains(says), "{text:?} should say {says:?}");
    }
    assert!(audit[3..].iter().all(|r| r.result.failure_kind() == Some(FailureKind::Denied)));
    assert_eq!(runs.load(Ordering::SeqCst), 1);
}

/// Regression: a handler's request that expires at `…T21:01:14.106Z` was stored as
/// `…T21:01:14Z`, so it could lapse almost a second early. Its milliseconds are kept, and so
/// are those of the registry's own expiry.
#[tokio::test]
async fn regression_an_expiry_keeps_its_milliseconds() {
    let asks = Tool::define("asks")
        .asks_for_input(true)
        .execute_sync(|_, ctx| match ctx.answer() {
            Some(_) => ToolResult::ok(json!({}), "done"),
            None => ToolResult::pending(
                Request::new("input", "which?").expires_at("2999-01-01T21:01:14.106Z"),
            ),
        })
        .build()
        .unwrap();
    let registry = Registry::builder().register(asks).seal().unwrap();
    let receipt = registry.invoke("asks", json!({})).call_id("c1").await;
    let request = receipt.result.pending_request().expect("a pending request");
    assert_eq!(request.expires_at.as_deref(), Some("2999-01-01T21:01:14.106Z"));
    let f = fixture();
    let own = ask(&f.registry, "prod", "c1").await;
    let own = own.expires_at.as_deref().unwrap_or_default();
    assert!(own.len() == "2026-12-05T06:59:00.123Z".len() && own.ends_with('Z'), "{own}");
}
