//! Durable suspensions: stored, listed, answered once, resumed once, expired. Every case runs
//! on SQLite and on PostgreSQL.

use std::future::IntoFuture;
use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::{Duration, SystemTime};

use serde_json::{Value, json};
use toolwire::{Answer, FailureKind, Request, Tool, ToolCall, ToolContext, ToolResult};
use toolwire_journal::{CallState, JournalErrorKind, PendingFilter};

use crate::common::{Backend, Fixture, count, registry};

on_both_backends!(
    an_approval_is_stored_listed_answered_and_resumed_once,
    the_handler_reads_the_answer_to_its_own_request,
    parallel_suspensions_in_one_dispatch_are_all_listed,
    a_lapsed_request_resolves_as_declined,
    answers_to_unknown_requests_and_second_answers_are_refused,
    racing_resumes_run_the_call_once,
    resuming_before_an_answer_is_refused,
    a_resume_through_a_registry_with_another_key_fails_closed,
    a_process_that_dies_resuming_leaves_an_unknown_outcome,
);

/// A tool that needs approval, and counts its runs.
fn deploy(runs: &Arc<AtomicUsize>) -> Tool {
    let runs = Arc::clone(runs);
    Tool::define("deploy")
        .needs_approval(true)
        .execute_sync(move |args: Value, _| {
            runs.fetch_add(1, Ordering::SeqCst);
            ToolResult::ok(args.clone(), "deployed")
        })
        .build()
        .unwrap()
}

/// A tool that asks for input, with a request lapsing at `expires_at`, and records the answer
/// it gets.
fn ask(runs: &Arc<AtomicUsize>, expires_at: Option<String>) -> Tool {
    let runs = Arc::clone(runs);
    Tool::define("ask")
        .asks_for_input(true)
        .execute_sync(move |_args: Value, ctx: ToolContext| match ctx.answer() {
            Some(answer) => {
                runs.fetch_add(1, Ordering::SeqCst);
                ToolResult::ok(json!({"answer": answer.data}), "answered")
            }
            None => {
                let mut request = Request::new("input", "which environment?");
                if let Some(at) = &expires_at {
                    request = request.expires_at(at.clone());
                }
                ToolResult::pending(request)
            }
        })
        .build()
        .unwrap()
}

async fn an_approval_is_stored_listed_answered_and_resumed_once(backend: Backend) {
    let fixture = Fixture::new(backend).await;
    let (a, b) = (fixture.open().await, fixture.open().await);
    let runs = Arc::new(AtomicUsize::new(0));
    let (reg_a, reg_b) = (registry(&a, vec![deploy(&runs)]), registry(&b, vec![deploy(&runs)]));
    let parked = a.invoke(&reg_a, "deploy", json!({"env": "prod"})).call_id("c1").await.unwrap();
    let request = parked.result.pending_request().unwrap().clone();
    // Delivered again while it waits: the pending receipt, not a second request.
    let again = a.invoke(&reg_a, "deploy", json!({"env": "prod"})).call_id("c1").await.unwrap();
    assert_eq!(again, parked);

    // Another process lists it, with everything needed to resume it.
    let listed = b.pending(&PendingFilter::all()).await.unwrap();
    assert_eq!(listed.len(), 1);
    let s = &listed[0];
    assert_eq!((s.call.call_id.as_str(), &*s.call.tool), ("c1", "deploy"));
    assert_eq!(s.call.arguments, json!({"env": "prod"}));
    assert_eq!(s.invocation_id, parked.invocation_id);
    assert_eq!(s.request, request);
    assert!(s.answer.is_none());
    assert!(b.pending(&PendingFilter::all().tool("other")).await.unwrap().is_empty());
    assert_eq!(b.pending(&PendingFilter::all().kind("approval")).await.unwrap().len(), 1);

    let answered = b.answer(Answer::accept(request.id.clone(), json!(null))).await.unwrap();
    assert!(answered.answer.as_ref().is_some_and(|a| a.ok));
    let done = b.resume(&reg_b, &request.id).await.unwrap();
    assert!(done.result.is_success(), "{:?}", done.result);
    assert_eq!(done.call_id.as_deref(), Some("c1"));
    assert_eq!(count(&runs), 1);
    assert!(b.pending(&PendingFilter::all()).await.unwrap().is_empty());
    // Later deliveries of the id replay the resumed call's receipt.
    let replay = a.invoke(&reg_a, "deploy", json!({"env": "prod"})).call_id("c1").await.unwrap();
    assert_eq!(replay.invocation_id, done.invocation_id);
    assert_eq!(count(&runs), 1);
}

async fn the_handler_reads_the_answer_to_its_own_request(backend: Backend) {
    let fixture = Fixture::new(backend).await;
    let journal = fixture.open().await;
    let runs = Arc::new(AtomicUsize::new(0));
    let registry = registry(&journal, vec![ask(&runs, None)]);
    let parked = journal.invoke(&registry, "ask", json!({})).call_id("q1").await.unwrap();
    let id = parked.result.pending_request().unwrap().id.clone();
    journal.answer(Answer::accept(id.clone(), json!("staging"))).await.unwrap();
    let done = journal.resume(&registry, &id).await.unwrap();
    assert_eq!(done.result.json(), &json!({"answer": "staging"}));
    assert_eq!(count(&runs), 1);
}

async fn parallel_suspensions_in_one_dispatch_are_all_listed(backend: Backend) {
    let fixture = Fixture::new(backend).await;
    let journal = fixture.open().await;
    let runs = Arc::new(AtomicUsize::new(0));
    let registry = registry(&journal, vec![deploy(&runs), ask(&runs, None)]);
    let calls = vec![
        ToolCall::new("p1", "deploy", json!({"env": "a"})),
        ToolCall::new("p2", "deploy", json!({"env": "b"})),
        ToolCall::new("p3", "ask", json!({})),
    ];
    let receipts = journal.dispatch(&registry, calls).await;
    let ids: Vec<String> = receipts
        .iter()
        .map(|r| r.as_ref().unwrap().call_id.as_deref().unwrap().to_owned())
        .collect();
    assert_eq!(ids, ["p1", "p2", "p3"]);
    let mut listed: Vec<String> = journal
        .pending(&PendingFilter::all())
        .await
        .unwrap()
        .into_iter()
        .map(|s| s.call.call_id.to_string())
        .collect();
    listed.sort();
    assert_eq!(listed, ["p1", "p2", "p3"]);
    assert_eq!(journal.pending(&PendingFilter::all().kind("approval")).await.unwrap().len(), 2);
    assert_eq!(journal.pending(&PendingFilter::all().tool("ask")).await.unwrap().len(), 1);
}

async fn a_lapsed_request_resolves_as_declined(backend: Backend) {
    let fixture = Fixture::new(backend).await;
    let journal = fixture.open().await;
    let runs = Arc::new(AtomicUsize::new(0));
    let soon = humantime::format_rfc3339_millis(SystemTime::now() + Duration::from_millis(1500))
        .to_string();
    let registry = registry(&journal, vec![ask(&runs, Some(soon))]);
    let first = journal.invoke(&registry, "ask", json!({"n": 1})).call_id("e1").await.unwrap();
    let second = journal.invoke(&registry, "ask", json!({"n": 2})).call_id("e2").await.unwrap();
    let first_id = first.result.pending_request().unwrap().id.clone();
    assert!(journal.expire_due().await.unwrap().is_empty(), "not lapsed yet");
    tokio::time::sleep(Duration::from_millis(1600)).await;

    // Answering a lapsed request tells so, and resolves it as declined.
    let error = journal.answer(Answer::accept(first_id.clone(), json!("x"))).await.unwrap_err();
    assert_eq!(error.kind(), JournalErrorKind::Expired);
    assert!(error.to_string().contains("expired"), "{error}");
    let swept = journal.expire_due().await.unwrap();
    assert_eq!(swept.len(), 1);
    assert_eq!(swept[0].call_id.as_deref(), Some("e2"));
    assert!(second.result.pending_request().is_some());
    for id in ["e1", "e2"] {
        let replay = journal.invoke(&registry, "ask", parked_args(id)).call_id(id).await.unwrap();
        assert_eq!(replay.result.failure_kind(), Some(FailureKind::Denied));
        assert!(
            replay.result.text().unwrap().contains("reason: expired"),
            "{:?}",
            replay.result.text()
        );
        assert_eq!(journal.record(id).await.unwrap().unwrap().state, CallState::Completed);
    }
    assert_eq!(count(&runs), 0, "the handler never ran with an answer");
    assert!(journal.pending(&PendingFilter::all()).await.unwrap().is_empty());
}

fn parked_args(id: &str) -> Value {
    if id == "e1" { json!({"n": 1}) } else { json!({"n": 2}) }
}

async fn answers_to_unknown_requests_and_second_answers_are_refused(backend: Backend) {
    let fixture = Fixture::new(backend).await;
    let journal = fixture.open().await;
    let runs = Arc::new(AtomicUsize::new(0));
    let registry = registry(&journal, vec![deploy(&runs)]);
    let error = journal.answer(Answer::accept("apr-nope", json!(null))).await.unwrap_err();
    assert_eq!(error.kind(), JournalErrorKind::UnknownRequest);
    assert!(error.to_string().contains("\"apr-nope\""));
    let parked = journal.invoke(&registry, "deploy", json!({})).call_id("c1").await.unwrap();
    let id = parked.result.pending_request().unwrap().id.clone();
    journal.answer(Answer::decline(id.clone(), "not today")).await.unwrap();
    let second = journal.answer(Answer::accept(id.clone(), json!(null))).await.unwrap_err();
    assert_eq!(second.kind(), JournalErrorKind::AlreadyAnswered);
    assert!(second.to_string().contains("already declined"), "{second}");
    // The first answer stands: the call resumes declined, and never runs.
    let done = journal.resume(&registry, &id).await.unwrap();
    assert_eq!(done.result.failure_kind(), Some(FailureKind::Denied));
    assert!(done.result.text().unwrap().contains("not today"));
    assert_eq!(count(&runs), 0);
}

async fn racing_resumes_run_the_call_once(backend: Backend) {
    let fixture = Fixture::new(backend).await;
    let runs = Arc::new(AtomicUsize::new(0));
    let first = fixture.open().await;
    let reg = registry(&first, vec![deploy(&runs)]);
    let parked = first.invoke(&reg, "deploy", json!({})).call_id("r1").await.unwrap();
    let id = parked.result.pending_request().unwrap().id.clone();
    first.answer(Answer::accept(id.clone(), json!(null))).await.unwrap();
    let mut racers = Vec::new();
    for _ in 0..4 {
        let journal = fixture.open().await;
        let registry = registry(&journal, vec![deploy(&runs)]);
        let id = id.clone();
        racers.push(tokio::spawn(async move { journal.resume(&registry, &id).await }));
    }
    let mut ok = 0;
    for racer in racers {
        match racer.await.unwrap() {
            Ok(receipt) => {
                assert!(receipt.result.is_success());
                ok += 1;
            }
            Err(error) => {
                assert_eq!(error.kind(), JournalErrorKind::AlreadyResumed, "{error}");
                assert!(error.to_string().contains("already resumed"));
            }
        }
    }
    assert_eq!(ok, 1);
    assert_eq!(count(&runs), 1);
}

async fn resuming_before_an_answer_is_refused(backend: Backend) {
    let fixture = Fixture::new(backend).await;
    let journal = fixture.open().await;
    let runs = Arc::new(AtomicUsize::new(0));
    let registry = registry(&journal, vec![deploy(&runs)]);
    let parked = journal.invoke(&registry, "deploy", json!({})).call_id("n1").await.unwrap();
    let id = parked.result.pending_request().unwrap().id.clone();
    let error = journal.resume(&registry, &id).await.unwrap_err();
    assert_eq!(error.kind(), JournalErrorKind::NotAnswered);
    let unknown = journal.resume(&registry, "req-missing").await.unwrap_err();
    assert_eq!(unknown.kind(), JournalErrorKind::UnknownRequest);
    assert_eq!(count(&runs), 0);
}

async fn a_resume_through_a_registry_with_another_key_fails_closed(backend: Backend) {
    let fixture = Fixture::new(backend).await;
    let journal = fixture.open().await;
    let runs = Arc::new(AtomicUsize::new(0));
    let registry = registry(&journal, vec![deploy(&runs)]);
    let parked = journal.invoke(&registry, "deploy", json!({})).call_id("k1").await.unwrap();
    let id = parked.result.pending_request().unwrap().id.clone();
    journal.answer(Answer::accept(id.clone(), json!(null))).await.unwrap();
    // A process that sealed its registry with a key of its own cannot pass the approval.
    let stranger = toolwire::Registry::builder().register(deploy(&runs)).seal().unwrap();
    let done = journal.resume(&stranger, &id).await.unwrap();
    assert_eq!(done.result.failure_kind(), Some(FailureKind::Denied));
    assert!(
        done.result.text().unwrap().contains("not issued by this registry"),
        "{:?}",
        done.result.text()
    );
    assert_eq!(count(&runs), 0);
}

async fn a_process_that_dies_resuming_leaves_an_unknown_outcome(backend: Backend) {
    let fixture = Fixture::new(backend).await;
    let (dead, alive) = (fixture.open().await, fixture.open().await);
    let runs = Arc::new(AtomicUsize::new(0));
    let slow_after_answer = |runs: &Arc<AtomicUsize>| {
        let runs = Arc::clone(runs);
        Tool::define("ask")
            .asks_for_input(true)
            .execute(move |_args: Value, ctx: ToolContext| {
                let runs = Arc::clone(&runs);
                async move {
                    if ctx.answer().is_none() {
                        return ToolResult::pending(Request::new("input", "which?"));
                    }
                    runs.fetch_add(1, Ordering::SeqCst);
                    tokio::time::sleep(Duration::from_secs(30)).await;
                    ToolResult::ok(json!({}), "answered")
                }
            })
            .build()
            .unwrap()
    };
    let reg_dead = registry(&dead, vec![slow_after_answer(&runs)]);
    let reg = registry(&alive, vec![slow_after_answer(&runs)]);
    let parked = dead.invoke(&reg_dead, "ask", json!({})).call_id("d1").await.unwrap();
    let id = parked.result.pending_request().unwrap().id.clone();
    dead.answer(Answer::accept(id.clone(), json!("x"))).await.unwrap();
    let resuming = tokio::spawn(dead.resume(&reg_dead, &id).into_future());
    while count(&runs) == 0 {
        tokio::time::sleep(Duration::from_millis(5)).await;
    }
    resuming.abort(); // the resuming process dies mid-handler
    let _ = resuming.await;

    let later = alive
        .invoke(&reg, "ask", json!({}))
        .call_id("d1")
        .timeout(Duration::from_secs(10))
        .await
        .unwrap();
    assert_eq!(later.result.failure_kind(), Some(FailureKind::UnknownOutcome));
    assert!(
        alive.pending(&PendingFilter::all()).await.unwrap().is_empty(),
        "nothing left to answer"
    );
    alive
        .resolve(
            "d1",
            toolwire_journal::Resolution::TookEffect(ToolResult::ok(json!({}), "done by hand")),
        )
        .await
        .unwrap();
    let replay = alive.invoke(&reg, "ask", json!({})).call_id("d1").await.unwrap();
    assert_eq!(replay.result.text(), Some("done by hand"));
    let error = alive.resume(&reg, &id).await.unwrap_err();
    assert_eq!(error.kind(), JournalErrorKind::AlreadyResumed);
    assert_eq!(count(&runs), 1);
}
