//! A replayed call is still seen in a trace: its `execute_tool` span says so.

use std::sync::Arc;
use std::sync::atomic::AtomicUsize;

use serde_json::json;

use crate::common::{Backend, Fixture, count, counting, registry};
use toolwire_test_support::spans;

#[test]
fn a_replay_has_an_execute_tool_span_marked_replayed() {
    let runs = Arc::new(AtomicUsize::new(0));
    let (receipts, spans) = spans::traced(|| {
        let runtime = tokio::runtime::Builder::new_current_thread().enable_all().build();
        runtime.expect("a runtime").block_on(async {
            let fixture = Fixture::new(Backend::Sqlite).await;
            let journal = fixture.open().await;
            let registry = registry(&journal, vec![counting("send", &runs)]);
            let mut receipts = Vec::new();
            for _ in 0..2 {
                let call = journal.invoke(&registry, "send", json!({"to": "ada"})).call_id("c1");
                receipts.push(call.await.expect("journaled"));
            }
            receipts
        })
    });
    assert_eq!(count(&runs), 1);
    let calls: Vec<_> = spans.iter().filter(|s| s.name == "execute_tool").collect();
    assert_eq!(calls.len(), 2, "{spans:#?}");
    let replayed: Vec<_> = calls.iter().map(|s| s.fields.get("toolwire.replayed")).collect();
    assert_eq!(replayed, [None, Some(&"true".to_owned())]);
    for (span, receipt) in calls.iter().zip(&receipts) {
        assert_eq!(span.fields["toolwire.invocation_id"], receipt.invocation_id.to_string());
        assert_eq!(span.fields["gen_ai.tool.call.id"], "c1");
        assert_eq!(span.fields["toolwire.outcome"], "success");
    }
    // The replay measured nothing: the tool did not run.
    assert_eq!(calls[0].metrics.len(), 1);
    assert!(calls[1].metrics.is_empty());
}
