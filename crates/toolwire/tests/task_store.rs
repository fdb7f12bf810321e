//! The task records and the in-memory task store: create once, read back, compare-and-set,
//! expiry and capacity; and a tool's declared task support.

use std::time::{Duration, SystemTime};

use serde_json::json;
use toolwire::tasks::{MemoryTaskStore, TaskLease, TaskRecord, TaskState, TaskStore};
use toolwire::{TaskSupport, Tool, ToolResult};

fn record(id: &str, ttl: Duration) -> TaskRecord {
    let lease = TaskLease::new("process-a", SystemTime::now() + Duration::from_secs(5));
    TaskRecord::new(id, "build", json!({"target": "all"}), "call-1", ttl)
        .with_lease(lease)
        .with_bridge(json!({}))
}

#[tokio::test]
async fn a_created_task_reads_back_and_its_id_cannot_be_taken_twice() {
    let store = MemoryTaskStore::new();
    store.create(record("t1", Duration::from_secs(60))).await.unwrap();
    let read = store.get("t1").await.unwrap().expect("the task is stored");
    assert_eq!(read, record_like(&read));
    let again = store.create(record("t1", Duration::from_secs(60))).await;
    assert!(again.unwrap_err().to_string().contains("taken"));
    assert_eq!(store.get("unknown").await.unwrap(), None);
}

/// The record as stored, compared field by field where time does not matter.
fn record_like(read: &TaskRecord) -> TaskRecord {
    let mut expected = record("t1", Duration::from_secs(60));
    expected.created_at = read.created_at;
    expected.updated_at = read.updated_at;
    expected.expires_at = read.expires_at;
    expected.lease = read.lease.clone();
    expected
}

#[tokio::test]
async fn of_two_updates_from_one_version_only_the_first_is_written() {
    let store = MemoryTaskStore::new();
    store.create(record("t1", Duration::from_secs(60))).await.unwrap();
    let read = store.get("t1").await.unwrap().unwrap();
    let mut done = read.clone();
    done.state = TaskState::Completed { result: ToolResult::ok(json!({"ok": true}), "built") };
    let mut cancelled = read;
    cancelled.state = TaskState::Cancelled;
    assert!(store.update(done).await.unwrap());
    assert!(!store.update(cancelled).await.unwrap(), "a stale version must not be written");
    let stored = store.get("t1").await.unwrap().unwrap();
    assert_eq!(stored.version, 1);
    assert!(stored.state.is_terminal());
    assert!(matches!(stored.state, TaskState::Completed { .. }));
}

#[tokio::test]
async fn an_expired_task_is_unknown_and_a_full_store_refuses_more() {
    let store = MemoryTaskStore::with_capacity(1);
    store.create(record("old", Duration::ZERO)).await.unwrap();
    assert_eq!(store.get("old").await.unwrap(), None, "an expired task is gone");
    // The expired one makes room; a live one does not.
    store.create(record("live", Duration::from_secs(60))).await.unwrap();
    let full = store.create(record("more", Duration::from_secs(60))).await;
    assert!(full.unwrap_err().to_string().contains("no room"));
}

#[test]
fn a_task_record_round_trips_through_json() {
    let mut task = record("t1", Duration::from_secs(60));
    task.state = TaskState::Failed { message: "the handler panicked".into() };
    let text = serde_json::to_string(&task).unwrap();
    let back: TaskRecord = serde_json::from_str(&text).unwrap();
    assert_eq!(back, task);
    assert!(text.contains(r#""status":"failed""#), "{text}");
}

#[test]
fn task_support_is_forbidden_unless_declared() {
    let plain = Tool::define("plain").execute_sync(|_, _| ToolResult::ok_json(json!({}))).build();
    let long = Tool::define("long")
        .task_support(TaskSupport::Required)
        .execute_sync(|_, _| ToolResult::ok_json(json!({})))
        .build();
    assert_eq!(plain.unwrap().task_support(), TaskSupport::Forbidden);
    assert_eq!(long.unwrap().task_support(), TaskSupport::Required);
}
