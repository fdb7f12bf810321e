//! A call id runs once: replays, mismatches, calls running elsewhere, and calls whose process
//! died. Every case runs on SQLite and on PostgreSQL.

use std::sync::Arc;
use std::sync::atomic::AtomicUsize;
use std::time::Duration;

use serde_json::json;
use toolwire::{FailureKind, Tool, ToolResult};
use toolwire_journal::{CallState, JournalErrorKind, Resolution};

use crate::common::{
    Backend, Fixture, count, counting, die_mid_call, registry, slow, until_running,
};

on_both_backends!(
    a_completed_call_replays_its_receipt_without_running,
    a_replay_goes_through_parse_output,
    the_same_id_with_other_arguments_fails_closed,
    a_call_running_elsewhere_is_awaited_not_run_again,
    a_call_running_elsewhere_past_the_deadline_fails_as_in_progress,
    a_dead_call_of_a_non_idempotent_tool_is_an_unknown_outcome_until_resolved,
    a_dead_call_of_an_idempotent_tool_runs_again,
    a_call_without_a_call_id_is_refused,
    concurrent_deliveries_of_one_id_run_it_once,
    regression_in_progress_elsewhere_is_its_own_failure_kind_not_timed_out,
);

async fn a_completed_call_replays_its_receipt_without_running(backend: Backend) {
    let fixture = Fixture::new(backend).await;
    let journal = fixture.open().await;
    let runs = Arc::new(AtomicUsize::new(0));
    let registry = registry(&journal, vec![counting("send", &runs)]);
    let first =
        journal.invoke(&registry, "send", json!({"to": "ada"})).call_id("c1").await.unwrap();
    assert!(first.result.is_success());
    // Key order does not matter: the digest is of canonical JSON.
    let again =
        journal.invoke(&registry, "send", json!({"to": "ada"})).call_id("c1").await.unwrap();
    assert_eq!(again, first);
    // Another process (another journal instance) replays it too.
    let other = fixture.open().await;
    let third = other.invoke(&registry, "send", json!({"to": "ada"})).call_id("c1").await.unwrap();
    assert_eq!(third.invocation_id, first.invocation_id);
    assert_eq!(count(&runs), 1);
    let record = journal.record("c1").await.unwrap().unwrap();
    assert_eq!(record.state, CallState::Completed);
    assert_eq!(record.receipt.as_ref(), Some(&first));
}

async fn a_replay_goes_through_parse_output(backend: Backend) {
    let fixture = Fixture::new(backend).await;
    let journal = fixture.open().await;
    let parsed = Arc::new(AtomicUsize::new(0));
    let seen = Arc::clone(&parsed);
    let tool = Tool::define("price")
        .execute_sync(|_, _| ToolResult::ok(json!({"cents": 250}), "2.50"))
        .parse_output(move |result: ToolResult| {
            let n = seen.fetch_add(1, std::sync::atomic::Ordering::SeqCst);
            if n == 0 { Ok(result) } else { Err("stale price") }
        })
        .build()
        .unwrap();
    let registry = registry(&journal, vec![tool]);
    let first = journal.invoke(&registry, "price", json!({})).call_id("p1").await.unwrap();
    assert!(first.result.is_success());
    let replay = journal.invoke(&registry, "price", json!({})).call_id("p1").await.unwrap();
    assert_eq!(count(&parsed), 2, "the output parser ran on the replay");
    assert_eq!(replay.result.failure_kind(), Some(FailureKind::InvalidOutput));
    assert!(replay.result.text().unwrap().contains("stale price"));
}

async fn the_same_id_with_other_arguments_fails_closed(backend: Backend) {
    let fixture = Fixture::new(backend).await;
    let journal = fixture.open().await;
    let runs = Arc::new(AtomicUsize::new(0));
    let registry = registry(&journal, vec![counting("send", &runs), counting("other", &runs)]);
    journal.invoke(&registry, "send", json!({"to": "ada", "n": 1})).call_id("c1").await.unwrap();
    let reordered = journal
        .invoke(&registry, "send", json!({"n": 1, "to": "ada"}))
        .call_id("c1")
        .await
        .unwrap();
    assert!(reordered.result.is_success(), "the same arguments in another key order replay");
    let changed = journal
        .invoke(&registry, "send", json!({"to": "bob", "n": 1}))
        .call_id("c1")
        .await
        .unwrap();
    assert_eq!(changed.result.failure_kind(), Some(FailureKind::Denied));
    let text = changed.result.text().unwrap();
    assert!(text.contains("\"c1\"") && text.contains("other arguments"), "{text}");
    let other_tool = journal
        .invoke(&registry, "other", json!({"to": "ada", "n": 1}))
        .call_id("c1")
        .await
        .unwrap();
    assert!(
        other_tool.result.text().unwrap().contains("\"send\""),
        "{:?}",
        other_tool.result.text()
    );
    assert_eq!(count(&runs), 1);
}

async fn a_call_running_elsewhere_is_awaited_not_run_again(backend: Backend) {
    let fixture = Fixture::new(backend).await;
    let (a, b) = (fixture.open().await, fixture.open().await);
    let runs = Arc::new(AtomicUsize::new(0));
    let tools = || vec![slow("deploy", &runs, Duration::from_millis(600), false)];
    let (reg_a, reg_b) = (registry(&a, tools()), registry(&b, tools()));
    let first =
        tokio::spawn(a.invoke(&reg_a, "deploy", json!({"v": 1})).call_id("d1").into_future());
    tokio::time::sleep(Duration::from_millis(150)).await;
    let second = b
        .invoke(&reg_b, "deploy", json!({"v": 1}))
        .call_id("d1")
        .timeout(Duration::from_secs(10))
        .await
        .unwrap();
    let first = first.await.unwrap().unwrap();
    assert_eq!(
        second.invocation_id, first.invocation_id,
        "the waiting call got the runner's receipt"
    );
    assert!(second.result.is_success());
    assert_eq!(count(&runs), 1);
}

async fn a_call_running_elsewhere_past_the_deadline_fails_as_in_progress(backend: Backend) {
    let fixture = Fixture::new(backend).await;
    let (a, b) = (fixture.open().await, fixture.open().await);
    let runs = Arc::new(AtomicUsize::new(0));
    let tools = || vec![slow("deploy", &runs, Duration::from_millis(900), false)];
    let (reg_a, reg_b) = (registry(&a, tools()), registry(&b, tools()));
    let first = tokio::spawn(a.invoke(&reg_a, "deploy", json!({})).call_id("d2").into_future());
    until_running(&b, "d2").await;
    let waited = b
        .invoke(&reg_b, "deploy", json!({}))
        .call_id("d2")
        .timeout(Duration::from_millis(200))
        .await
        .unwrap();
    assert_eq!(waited.result.failure_kind(), Some(FailureKind::InProgress));
    assert!(waited.result.text().unwrap().contains("in progress"), "{:?}", waited.result.text());
    assert!(first.await.unwrap().unwrap().result.is_success());
    assert_eq!(count(&runs), 1);
}

async fn a_dead_call_of_a_non_idempotent_tool_is_an_unknown_outcome_until_resolved(
    backend: Backend,
) {
    let fixture = Fixture::new(backend).await;
    let (dead, alive) = (fixture.open().await, fixture.open().await);
    let runs = Arc::new(AtomicUsize::new(0));
    let tools = || vec![slow("charge", &runs, Duration::from_millis(400), false)];
    let (reg_dead, reg) = (registry(&dead, tools()), registry(&alive, tools()));
    die_mid_call(&dead, &reg_dead, "charge", "u1").await;
    die_mid_call(&dead, &reg_dead, "charge", "u2").await;
    assert_eq!(count(&runs), 2);
    // Once the lease lapses, a redelivery does not run it: the outcome is unknown.
    let unknown = alive
        .invoke(&reg, "charge", json!({"x": 1}))
        .call_id("u1")
        .timeout(Duration::from_secs(5))
        .await
        .unwrap();
    assert_eq!(unknown.result.failure_kind(), Some(FailureKind::UnknownOutcome));
    assert!(unknown.result.text().unwrap().contains("not idempotent"));
    alive
        .invoke(&reg, "charge", json!({"x": 1}))
        .call_id("u2")
        .timeout(Duration::from_secs(5))
        .await
        .unwrap();
    let again = alive.invoke(&reg, "charge", json!({"x": 1})).call_id("u1").await.unwrap();
    assert_eq!(
        again.result.failure_kind(),
        Some(FailureKind::UnknownOutcome),
        "kept until resolved"
    );
    let listed: Vec<String> = alive
        .unknown_outcomes()
        .await
        .unwrap()
        .into_iter()
        .map(|r| r.call.call_id.to_string())
        .collect();
    assert_eq!(listed, ["u1", "u2"]);
    assert_eq!(count(&runs), 2);

    // The host resolves them: u1 took effect, u2 did not.
    alive
        .resolve("u1", Resolution::TookEffect(ToolResult::ok(json!({"charged": true}), "charged")))
        .await
        .unwrap();
    alive.resolve("u2", Resolution::DidNotRun).await.unwrap();
    let u1 = alive.invoke(&reg, "charge", json!({"x": 1})).call_id("u1").await.unwrap();
    assert_eq!(u1.result.text(), Some("charged"));
    let u2 = alive.invoke(&reg, "charge", json!({"x": 1})).call_id("u2").await.unwrap();
    assert_eq!(u2.result.text(), Some("slow done"));
    assert_eq!(count(&runs), 3);
    let error = alive.resolve("u1", Resolution::DidNotRun).await.unwrap_err();
    assert_eq!(error.kind(), JournalErrorKind::NotUnknown);
}

async fn a_dead_call_of_an_idempotent_tool_runs_again(backend: Backend) {
    let fixture = Fixture::new(backend).await;
    let (dead, alive) = (fixture.open().await, fixture.open().await);
    let runs = Arc::new(AtomicUsize::new(0));
    let tools = || vec![slow("lookup", &runs, Duration::from_millis(400), true)];
    let (reg_dead, reg) = (registry(&dead, tools()), registry(&alive, tools()));
    die_mid_call(&dead, &reg_dead, "lookup", "i1").await;
    let rerun = alive
        .invoke(&reg, "lookup", json!({"x": 1}))
        .call_id("i1")
        .timeout(Duration::from_secs(5))
        .await
        .unwrap();
    assert!(rerun.result.is_success());
    assert_eq!(count(&runs), 2);
    assert_eq!(alive.record("i1").await.unwrap().unwrap().attempts, 2);
}

async fn a_call_without_a_call_id_is_refused(backend: Backend) {
    let fixture = Fixture::new(backend).await;
    let journal = fixture.open().await;
    let runs = Arc::new(AtomicUsize::new(0));
    let registry = registry(&journal, vec![counting("send", &runs)]);
    let error = journal.invoke(&registry, "send", json!({})).await.unwrap_err();
    assert_eq!(error.kind(), JournalErrorKind::MissingCallId);
    assert!(error.to_string().contains("\"send\""));
    assert_eq!(count(&runs), 0);
}

async fn concurrent_deliveries_of_one_id_run_it_once(backend: Backend) {
    let fixture = Fixture::new(backend).await;
    let runs = Arc::new(AtomicUsize::new(0));
    let mut calls = Vec::new();
    for _ in 0..3 {
        let journal = fixture.open().await;
        let registry =
            registry(&journal, vec![slow("pay", &runs, Duration::from_millis(50), false)]);
        for _ in 0..4 {
            let call = journal
                .invoke(&registry, "pay", json!({"amount": 5}))
                .call_id("race")
                .timeout(Duration::from_secs(10));
            calls.push(tokio::spawn(call.into_future()));
        }
    }
    let mut ids = Vec::new();
    for call in calls {
        let receipt = call.await.unwrap().unwrap();
        assert!(receipt.result.is_success(), "{:?}", receipt.result);
        ids.push(receipt.invocation_id);
    }
    ids.dedup();
    assert_eq!(ids.len(), 1, "every delivery got the one run's receipt");
    assert_eq!(count(&runs), 1);
}

/// "In progress" was a `TimedOut`, told apart from a handler's timeout only by its text.
async fn regression_in_progress_elsewhere_is_its_own_failure_kind_not_timed_out(backend: Backend) {
    let fixture = Fixture::new(backend).await;
    let (a, b) = (fixture.open().await, fixture.open().await);
    let runs = Arc::new(AtomicUsize::new(0));
    let tools = || vec![slow("deploy", &runs, Duration::from_millis(900), false)];
    let (reg_a, reg_b) = (registry(&a, tools()), registry(&b, tools()));
    let first = tokio::spawn(a.invoke(&reg_a, "deploy", json!({})).call_id("p1").into_future());
    until_running(&b, "p1").await;
    let waited = b
        .invoke(&reg_b, "deploy", json!({}))
        .call_id("p1")
        .timeout(Duration::from_millis(100))
        .await
        .unwrap();
    assert_eq!(waited.result.failure_kind(), Some(FailureKind::InProgress));
    assert!(!waited.result.is_timed_out());
    assert_eq!(FailureKind::InProgress.as_str(), "in_progress");
    // The handler's own timeout stays `TimedOut`.
    let timed_out = a
        .invoke(&reg_a, "deploy", json!({}))
        .call_id("p2")
        .timeout(Duration::from_millis(50))
        .await
        .unwrap();
    assert_eq!(timed_out.result.failure_kind(), Some(FailureKind::TimedOut));
    assert!(first.await.unwrap().unwrap().result.is_success());
}

/// `Instant::now() + timeout` panicked on a timeout past what the clock can add.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn regression_a_duration_max_timeout_does_not_panic() {
    let fixture = Fixture::new(Backend::Sqlite).await;
    let journal = fixture.open().await;
    let runs = Arc::new(AtomicUsize::new(0));
    let registry = registry(&journal, vec![counting("send", &runs)]);
    let call = journal.invoke(&registry, "send", json!({})).call_id("m1").timeout(Duration::MAX);
    let receipt = tokio::spawn(call.into_future()).await.expect("no panic").unwrap();
    assert!(receipt.result.is_success(), "a too-large timeout is no timeout: {:?}", receipt.result);
    assert_eq!(count(&runs), 1);
}

use std::future::IntoFuture;
