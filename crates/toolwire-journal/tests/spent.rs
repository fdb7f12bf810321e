//! The journal as the registries' approval store: an approval opens one run across every
//! process sharing the journal, and across restarts.

use std::sync::Arc;
use std::sync::atomic::AtomicUsize;

use serde_json::json;
use toolwire::policy::SpentApproval;
use toolwire::{Answer, FailureKind, Registry, Tool, ToolResult};
use toolwire_journal::Journal;

use crate::common::{Backend, Fixture, count};

/// A `deploy` tool that needs approval and counts its runs.
fn deploy(runs: &Arc<AtomicUsize>) -> Tool {
    let runs = Arc::clone(runs);
    Tool::define("deploy")
        .needs_approval(true)
        .execute_sync(move |args, _| {
            runs.fetch_add(1, std::sync::atomic::Ordering::SeqCst);
            ToolResult::ok(args, "deployed")
        })
        .build()
        .expect("the tool builds")
}

/// A registry of one process: the journal's key, and the journal as its store.
fn spending(journal: &Journal, runs: &Arc<AtomicUsize>) -> Registry {
    Registry::builder()
        .register(deploy(runs))
        .approval_key(journal.approval_key())
        .approval_store(journal.clone())
        .seal()
        .expect("the registry seals")
}

async fn regression_an_approval_runs_once_across_processes_and_restarts(backend: Backend) {
    let fixture = Fixture::new(backend).await;
    let runs = Arc::new(AtomicUsize::new(0));
    let (one, two) = (fixture.open().await, fixture.open().await);
    let (a, b) = (spending(&one, &runs), spending(&two, &runs));
    let parked = a.invoke("deploy", json!({"env": "prod"})).call_id("c1").await;
    let id = parked.result.pending_request().expect("it asks").id.clone();
    let answer = Answer::accept(id, json!(null));
    let done =
        b.invoke("deploy", json!({"env": "prod"})).call_id("c1").answer(answer.clone()).await;
    assert!(done.result.is_success(), "{:?}", done.result);
    // The other process, with its own registry, cannot run it again.
    let again =
        a.invoke("deploy", json!({"env": "prod"})).call_id("c1").answer(answer.clone()).await;
    assert_eq!(again.result.failure_kind(), Some(FailureKind::Denied));
    assert!(again.result.text().unwrap_or_default().contains("already used"), "{:?}", again.result);
    // Nor can a process started after both are gone.
    one.close().await;
    two.close().await;
    let three = fixture.open().await;
    let c = spending(&three, &runs);
    let later = c.invoke("deploy", json!({"env": "prod"})).call_id("c1").answer(answer).await;
    assert_eq!(later.result.failure_kind(), Some(FailureKind::Denied));
    assert_eq!(count(&runs), 1);
}

async fn concurrent_spends_of_one_approval_let_exactly_one_through(backend: Backend) {
    let fixture = Fixture::new(backend).await;
    let journals = [fixture.open().await, fixture.open().await, fixture.open().await];
    let until = std::time::SystemTime::now() + std::time::Duration::from_secs(60);
    let approval = SpentApproval::new("apr-test", "d".repeat(64), until);
    let spends = journals.iter().flat_map(|journal| {
        (0..4).map(|_| {
            let (journal, approval) = (journal.clone(), approval.clone());
            tokio::spawn(async move { journal.spend_approval(&approval).await })
        })
    });
    let mut fresh = 0;
    for spend in spends.collect::<Vec<_>>() {
        fresh += usize::from(spend.await.expect("the task ends").expect("the journal writes"));
    }
    assert_eq!(fresh, 1, "twelve spends of one id, across three processes");
}

async fn lapsed_approvals_are_dropped_from_the_journal(backend: Backend) {
    let fixture = Fixture::new(backend).await;
    let journal = fixture.open().await;
    let now = std::time::SystemTime::now();
    let lapsed = SpentApproval::new("apr-old", "d".repeat(64), now);
    assert!(journal.spend_approval(&lapsed).await.expect("it writes"));
    let live =
        SpentApproval::new("apr-new", "d".repeat(64), now + std::time::Duration::from_secs(60));
    assert!(journal.spend_approval(&live).await.expect("it writes"));
    // The lapsed row went with the second spend, so its id reads as fresh again (the core
    // refuses a lapsed id before it asks the store); the live one stays spent.
    assert!(journal.spend_approval(&lapsed).await.expect("it writes"));
    assert!(!journal.spend_approval(&live).await.expect("it writes"));
}

on_both_backends!(
    regression_an_approval_runs_once_across_processes_and_restarts,
    concurrent_spends_of_one_approval_let_exactly_one_through,
    lapsed_approvals_are_dropped_from_the_journal,
);
