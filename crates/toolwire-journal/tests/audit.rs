//! The audit log: every receipt of a journaled call, and any the host appends, read back by
//! call id, tool, time range and failure kind. Every case runs on SQLite and on PostgreSQL.

mod common;

use std::sync::Arc;
use std::sync::atomic::AtomicUsize;
use std::time::{Duration, SystemTime};

use common::{Backend, Fixture, counting, registry};
use serde_json::json;
use toolwire::{FailureKind, Registry, Tool, ToolResult};
use toolwire_journal::AuditQuery;

on_both_backends!(receipts_read_back_by_call_id_tool_time_and_failure_kind);

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
