//! The journal as a task store: a task outlives the process that started it, and every
//! change to it is a compare-and-set that exactly one of many racing writers wins, across
//! every process sharing the journal.

use std::time::{Duration, SystemTime};

use serde_json::json;
use toolwire::ToolResult;
use toolwire::tasks::{TaskLease, TaskRecord, TaskState, TaskStore};

use crate::common::{Backend, Fixture};

fn record(id: &str, ttl: Duration) -> TaskRecord {
    let lease = TaskLease::new("server-a", SystemTime::now() + Duration::from_secs(30));
    TaskRecord::new(id, "deploy", json!({"env": "prod"}), "mcp-1", ttl)
        .with_principal("p".repeat(32))
        .with_lease(lease)
        .with_bridge(json!({"asked": {}}))
}

async fn a_task_survives_a_restart_and_its_id_is_taken_once(backend: Backend) {
    let fixture = Fixture::new(backend).await;
    let journal = fixture.open().await;
    let task = record("twt-1", Duration::from_secs(60));
    journal.create(task.clone()).await.expect("created");
    let taken = journal.create(record("twt-1", Duration::from_secs(60))).await;
    assert!(taken.is_err_and(|e| e.0.contains("taken")), "an id is created once");
    journal.close().await;

    let reopened = fixture.open().await;
    let found = reopened.get("twt-1").await.expect("it reads").expect("it is there");
    assert_eq!(found, task, "the record comes back as written");
    assert_eq!(reopened.get("twt-unknown").await.expect("it reads"), None);
}

async fn an_update_from_a_stale_version_is_refused(backend: Backend) {
    let fixture = Fixture::new(backend).await;
    let journal = fixture.open().await;
    journal.create(record("twt-2", Duration::from_secs(60))).await.expect("created");
    let read = journal.get("twt-2").await.expect("it reads").expect("it is there");
    let mut done = read.clone();
    done.state = TaskState::Completed { result: ToolResult::ok(json!(1), "done") };
    done.lease = None;
    assert!(journal.update(done.clone()).await.expect("it writes"));
    let mut cancelled = read;
    cancelled.state = TaskState::Cancelled;
    assert!(!journal.update(cancelled).await.expect("it writes"), "read before the change");
    let now = journal.get("twt-2").await.expect("it reads").expect("it is there");
    assert_eq!(now.version, 1);
    assert_eq!(now.state, done.state);
}

async fn of_many_racing_updates_across_processes_exactly_one_wins(backend: Backend) {
    let fixture = Fixture::new(backend).await;
    let journals = [fixture.open().await, fixture.open().await, fixture.open().await];
    journals[0].create(record("twt-3", Duration::from_secs(60))).await.expect("created");
    let read = journals[1].get("twt-3").await.expect("it reads").expect("it is there");
    let racers = journals.iter().enumerate().flat_map(|(n, journal)| {
        let read = read.clone();
        (0..4).map(move |k| {
            let (journal, mut next) = (journal.clone(), read.clone());
            next.message = Some(format!("writer {n}.{k}"));
            tokio::spawn(async move { journal.update(next).await })
        })
    });
    let mut won = 0;
    for racer in racers.collect::<Vec<_>>() {
        won += usize::from(racer.await.expect("the task ends").expect("the journal writes"));
    }
    assert_eq!(won, 1, "twelve writers from one version");
}

async fn an_expired_task_is_gone(backend: Backend) {
    let fixture = Fixture::new(backend).await;
    let journal = fixture.open().await;
    journal.create(record("twt-old", Duration::from_millis(1))).await.expect("created");
    tokio::time::sleep(Duration::from_millis(20)).await;
    assert_eq!(journal.get("twt-old").await.expect("it reads"), None);
    let stale = record("twt-old", Duration::from_secs(60));
    assert!(!journal.update(stale).await.expect("it writes"), "an expired task is not written");
    // Its id is free again once the expired row is dropped, as the next create does.
    journal.create(record("twt-old", Duration::from_secs(60))).await.expect("created again");
}

async fn a_hosts_answer_goes_to_the_task_that_asked_once(backend: Backend) {
    let fixture = Fixture::new(backend).await;
    let journal = fixture.open().await;
    let mut asking = record("twt-ask", Duration::from_secs(60));
    asking.state = TaskState::InputRequired { request: toolwire::Request::new("approval", "ok?") };
    let request_id = match &asking.state {
        TaskState::InputRequired { request } => request.id.clone(),
        _ => unreachable!("set just above"),
    };
    journal.create(asking).await.expect("created");
    journal.create(record("twt-busy", Duration::from_secs(60))).await.expect("created");
    let waiting = journal.waiting_tasks().await.expect("it reads");
    assert_eq!(waiting.iter().map(|t| t.id.as_str()).collect::<Vec<_>>(), ["twt-ask"]);

    let stray = toolwire::Answer::accept("not-asked", json!(null));
    assert_eq!(journal.answer_task(&stray).await.expect("it reads"), None);
    let answer = toolwire::Answer::accept(request_id, json!(null));
    assert_eq!(journal.answer_task(&answer).await.expect("it writes").as_deref(), Some("twt-ask"));
    let stored = journal.get("twt-ask").await.expect("it reads").expect("it is there");
    assert_eq!(stored.host_answer, Some(answer.clone()));
    assert!(journal.waiting_tasks().await.expect("it reads").is_empty(), "answered once");
    assert_eq!(journal.answer_task(&answer).await.expect("it reads"), None, "not twice");
}

on_both_backends!(
    a_hosts_answer_goes_to_the_task_that_asked_once,
    a_task_survives_a_restart_and_its_id_is_taken_once,
    an_update_from_a_stale_version_is_refused,
    of_many_racing_updates_across_processes_exactly_one_wins,
    an_expired_task_is_gone,
);
