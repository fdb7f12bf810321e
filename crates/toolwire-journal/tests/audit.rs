//! The audit log: every receipt of a journaled call, and any the host appends, read back by
//! call id, tool, time range and failure kind. Every case runs on SQLite and on PostgreSQL.

use std::sync::Arc;
use std::sync::atomic::AtomicUsize;
use std::time::{Duration, SystemTime};

use serde_json::json;
use toolwire::{AbortController, FailureKind, Registry, Tool, ToolCall, ToolResult};
use toolwire_journal::{AuditQuery, Journal};

use crate::common::{
    self, Backend, Fixture, counting, die_mid_call, registry, slow, until_running,
};

on_both_backends!(
    receipts_read_back_by_call_id_tool_time_and_failure_kind,
    regression_a_refused_reuse_of_a_call_id_reaches_the_audit_log,
    regression_an_unknown_outcome_reaches_the_audit_log,
    regression_a_call_in_progress_elsewhere_reaches_the_audit_log,
    regression_a_wait_aborted_by_the_signal_reaches_the_audit_log,
    regression_calls_the_registry_fails_before_they_run_reach_the_audit_log,
);

async fn receipts_read_back_by_call_id_tool_time_and_failure_kind(backend: Backend) {
    let fixture = Fixture::new(backend).await;
    let journal = fixture.open().await;
    let runs = Arc::new(AtomicUsize::new(0));
    let fail =
        Tool::define("fail").execute_sync(|_, _| ToolResult::failure("boom")).build().unwrap();
    let registry = registry(&journal, vec![counting("send", &runs), fail]);
    let before = SystemTime::now() - Duration::from_millis(5);
    let a = journal.invoke(&registry, "send", json!({"n": 1})).call_id("a").await.unwrap();
    let b = journal.invoke(&registry, "fail", json!({})).call_id("b").await.unwrap();
    tokio::time::sleep(Duration::from_millis(20)).await;
    let middle = SystemTime::now();
    let c = journal.invoke(&registry, "send", json!({"n": 2})).call_id("c").await.unwrap();
    // A receipt from outside the journal, appended by the host.
    let plain = Registry::builder().register(counting("send", &runs)).seal().unwrap();
    let d = plain.invoke("missing", json!({})).call_id("d").await;
    journal.append(&d).await.unwrap();

    let all = journal.receipts(&AuditQuery::new()).await.unwrap();
    assert_eq!(all, vec![a.clone(), b.clone(), c.clone(), d.clone()]);
    assert_eq!(journal.receipts(&AuditQuery::new().call_id("b")).await.unwrap(), vec![b.clone()]);
    assert_eq!(
        journal.receipts(&AuditQuery::new().tool("send")).await.unwrap(),
        vec![a.clone(), c.clone()]
    );
    let early = AuditQuery::new().since(before).until(middle);
    assert_eq!(journal.receipts(&early).await.unwrap(), vec![a.clone(), b.clone()]);
    assert_eq!(
        journal.receipts(&AuditQuery::new().since(middle)).await.unwrap(),
        vec![c.clone(), d.clone()]
    );
    let failed = journal.receipts(&AuditQuery::new().failure(FailureKind::Handler)).await.unwrap();
    assert_eq!(failed, vec![b.clone()]);
    assert_eq!(failed[0].result.failure_kind(), Some(FailureKind::Handler));
    let unknown_tool =
        journal.receipts(&AuditQuery::new().failure(FailureKind::UnknownTool)).await.unwrap();
    assert_eq!(unknown_tool, vec![d]);
    assert_eq!(
        journal.receipts(&AuditQuery::new().successes(true)).await.unwrap(),
        vec![a.clone(), c]
    );
    assert_eq!(journal.receipts(&AuditQuery::new().limit(1)).await.unwrap(), vec![a.clone()]);
    // A replay is not a new invocation: it adds nothing to the log.
    journal.invoke(&registry, "send", json!({"n": 1})).call_id("a").await.unwrap();
    assert_eq!(journal.receipts(&AuditQuery::new().call_id("a")).await.unwrap(), vec![a]);
}

/// The receipts the audit log holds for `call_id`.
async fn logged(journal: &Journal, call_id: &str) -> Vec<toolwire::Receipt> {
    journal.receipts(&AuditQuery::new().call_id(call_id)).await.unwrap()
}

/// The journal's `Denied` for a reused call id was returned, never logged.
async fn regression_a_refused_reuse_of_a_call_id_reaches_the_audit_log(backend: Backend) {
    let fixture = Fixture::new(backend).await;
    let journal = fixture.open().await;
    let runs = Arc::new(AtomicUsize::new(0));
    let registry = registry(&journal, vec![counting("send", &runs)]);
    let first =
        journal.invoke(&registry, "send", json!({"to": "ada"})).call_id("r1").await.unwrap();
    let refused =
        journal.invoke(&registry, "send", json!({"to": "bob"})).call_id("r1").await.unwrap();
    assert_eq!(refused.result.failure_kind(), Some(FailureKind::Denied));
    assert_eq!(logged(&journal, "r1").await, vec![first, refused.clone()]);
    let denied = journal.receipts(&AuditQuery::new().failure(FailureKind::Denied)).await.unwrap();
    assert_eq!(denied, vec![refused]);
}

/// The journal's `UnknownOutcome` for a call whose process died was returned, never logged.
async fn regression_an_unknown_outcome_reaches_the_audit_log(backend: Backend) {
    let fixture = Fixture::new(backend).await;
    let (dead, alive) = (fixture.open().await, fixture.open().await);
    let runs = Arc::new(AtomicUsize::new(0));
    let tools = || vec![slow("charge", &runs, Duration::from_millis(400), false)];
    let (reg_dead, reg) = (registry(&dead, tools()), registry(&alive, tools()));
    die_mid_call(&dead, &reg_dead, "charge", "u1").await;
    let unknown = alive
        .invoke(&reg, "charge", json!({"x": 1}))
        .call_id("u1")
        .timeout(Duration::from_secs(5))
        .await
        .unwrap();
    assert_eq!(unknown.result.failure_kind(), Some(FailureKind::UnknownOutcome));
    assert_eq!(logged(&alive, "u1").await, vec![unknown]);
}

/// The journal's "in progress" for a call running elsewhere was returned, never logged.
async fn regression_a_call_in_progress_elsewhere_reaches_the_audit_log(backend: Backend) {
    let fixture = Fixture::new(backend).await;
    let (a, b) = (fixture.open().await, fixture.open().await);
    let runs = Arc::new(AtomicUsize::new(0));
    let tools = || vec![slow("deploy", &runs, Duration::from_millis(900), false)];
    let (reg_a, reg_b) = (registry(&a, tools()), registry(&b, tools()));
    let first = tokio::spawn(a.invoke(&reg_a, "deploy", json!({})).call_id("d1").into_future());
    until_running(&b, "d1").await;
    let waited = b
        .invoke(&reg_b, "deploy", json!({}))
        .call_id("d1")
        .timeout(Duration::from_millis(100))
        .await
        .unwrap();
    assert_eq!(waited.result.failure_kind(), Some(FailureKind::InProgress));
    let first = first.await.unwrap().unwrap();
    assert_eq!(logged(&b, "d1").await, vec![waited.clone(), first]);
    let in_progress =
        b.receipts(&AuditQuery::new().failure(FailureKind::InProgress)).await.unwrap();
    assert_eq!(in_progress, vec![waited]);
}

/// A wait on a call running elsewhere, cut short by the caller's signal, was never logged.
async fn regression_a_wait_aborted_by_the_signal_reaches_the_audit_log(backend: Backend) {
    let fixture = Fixture::new(backend).await;
    let (a, b) = (fixture.open().await, fixture.open().await);
    let runs = Arc::new(AtomicUsize::new(0));
    let tools = || vec![slow("deploy", &runs, Duration::from_millis(900), false)];
    let (reg_a, reg_b) = (registry(&a, tools()), registry(&b, tools()));
    let first = tokio::spawn(a.invoke(&reg_a, "deploy", json!({})).call_id("w1").into_future());
    until_running(&b, "w1").await;
    let controller = AbortController::new();
    let waiting = b.invoke(&reg_b, "deploy", json!({})).call_id("w1").signal(controller.signal());
    let waiting = tokio::spawn(waiting.into_future());
    tokio::time::sleep(Duration::from_millis(50)).await;
    controller.abort_with("the user gave up");
    let aborted = waiting.await.unwrap().unwrap();
    assert_eq!(aborted.result.failure_kind(), Some(FailureKind::Aborted));
    assert!(first.await.unwrap().unwrap().result.is_success());
    let aborts = b.receipts(&AuditQuery::new().failure(FailureKind::Aborted)).await.unwrap();
    assert_eq!(aborts, vec![aborted]);
}

/// A call of an unknown tool, or with arguments that could not be read, got a receipt from the
/// registry that never reached the audit log.
async fn regression_calls_the_registry_fails_before_they_run_reach_the_audit_log(backend: Backend) {
    let fixture = Fixture::new(backend).await;
    let journal = fixture.open().await;
    let runs = Arc::new(AtomicUsize::new(0));
    let registry = registry(&journal, vec![counting("send", &runs)]);
    let unknown = journal.invoke(&registry, "sned", json!({})).call_id("t1").await.unwrap();
    assert_eq!(unknown.result.failure_kind(), Some(FailureKind::UnknownTool));
    assert_eq!(logged(&journal, "t1").await, vec![unknown]);
    let malformed = ToolCall::malformed("t2", "send", "expected value at line 1 column 2");
    let mut outcomes = journal.dispatch(&registry, vec![malformed]).await;
    let rejected = outcomes.pop().unwrap().unwrap();
    assert_eq!(rejected.result.failure_kind(), Some(FailureKind::InvalidInput));
    assert_eq!(logged(&journal, "t2").await, vec![rejected]);
    assert_eq!(common::count(&runs), 0);
}

use std::future::IntoFuture;
