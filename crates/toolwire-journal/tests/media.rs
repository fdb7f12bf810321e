//! Results with media parts through the journal: a replay hands back the same bytes, and the
//! audit log keeps each part's kind, MIME type and size, never its bytes. Every case runs on
//! SQLite and on PostgreSQL.

use serde_json::json;
use toolwire::media::{Part, PartKind};
use toolwire::{Tool, ToolResult};
use toolwire_journal::AuditQuery;

use crate::common::{Backend, Fixture, registry};

on_both_backends!(a_result_with_parts_replays_byte_for_byte_and_the_audit_log_keeps_no_bytes,);

const PNG: &[u8] = b"\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR-the-rest-of-a-picture";

fn screenshot() -> Tool {
    Tool::define("screenshot")
        .execute_sync(|_, _| {
            ToolResult::ok(json!({"width": 1}), "the page").with_parts(vec![
                Part::image("image/png", PNG.to_vec()),
                Part::text("below the fold"),
            ])
        })
        .build()
        .unwrap()
}

async fn a_result_with_parts_replays_byte_for_byte_and_the_audit_log_keeps_no_bytes(
    backend: Backend,
) {
    let fixture = Fixture::new(backend).await;
    let journal = fixture.open().await;
    let registry = registry(&journal, vec![screenshot()]);
    let first = journal.invoke(&registry, "screenshot", json!({})).call_id("s1").await.unwrap();
    assert_eq!(first.result.parts().len(), 2);
    let replayed = journal.invoke(&registry, "screenshot", json!({})).call_id("s1").await.unwrap();
    assert_eq!(replayed.result, first.result);
    assert_eq!(&replayed.result.parts()[0].data().unwrap()[..], PNG);

    let logged = journal.receipts(&AuditQuery::new().call_id("s1")).await.unwrap();
    assert_eq!(logged.len(), 1);
    let parts = logged[0].result.parts();
    assert_eq!(parts[0].kind(), PartKind::Text);
    assert_eq!(
        parts[0].as_text(),
        Some(
            format!("[image image/png, {} bytes: bytes not kept in the audit log]", PNG.len())
                .as_str()
        )
    );
    assert_eq!(parts[1].as_text(), Some("below the fold"));
    let stored = serde_json::to_string(&logged[0]).unwrap();
    assert!(!stored.contains("iVBORw0KGgo"), "no base64 in the audit log: {stored}");
}
