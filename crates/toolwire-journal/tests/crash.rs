//! Proof that nothing is lost and nothing runs twice: worker processes drive 1,000 journaled
//! calls of a non-idempotent tool, whose side effect is a line in an append-only file outside
//! the journal, and are killed with SIGKILL at random moments.
//!
//! The workers are this test binary itself, started again with `TOOLWIRE_CRASH_WORKER` set:
//! see [`worker_process`].

mod harness;

use std::collections::HashSet;
use std::io::{BufRead, BufReader};
use std::path::Path;
use std::process::Child;
use std::sync::Arc;
use std::time::{Duration, Instant};

use harness::{
    CALLS, KILLS, after, collect, done_ids, drive, effect_counts, run_to_end, spawn_worker,
    spawn_worker_with, tools, worker_drive, worker_options, worker_suspend,
};
use serde_json::json;
use toolwire::{Registry, ToolResult};
use toolwire_journal::{CallState, Journal, PendingFilter, Resolution};

use crate::common::{Backend, Fixture};

/// The worker's side: with `TOOLWIRE_CRASH_WORKER` set, this process is a worker that the
/// tests below start and kill. Without it, it checks in-process that a worker's drive
/// completes every call id once.
#[test]
fn worker_process() {
    let runtime =
        tokio::runtime::Builder::new_multi_thread().worker_threads(2).enable_all().build().unwrap();
    match std::env::var("TOOLWIRE_CRASH_WORKER").ok().as_deref() {
        Some("drive") => runtime.block_on(worker_drive()),
        Some("suspend") => runtime.block_on(worker_suspend()),
        _ => runtime.block_on(drive_completes_every_call_once()),
    }
}

async fn drive_completes_every_call_once() {
    let fixture = Fixture::new(Backend::Sqlite).await;
    let effects = fixture.dir().join("effects.log");
    let journal = Journal::open_with(&fixture.url, worker_options(&fixture.url)).await.unwrap();
    let registry = Registry::builder()
        .register_all(tools(&effects))
        .approval_key(journal.approval_key())
        .seal()
        .unwrap();
    let lines = Arc::new(std::sync::Mutex::new(Vec::new()));
    let sink = Arc::clone(&lines);
    drive(&journal, &registry, 7, 32, move |line| sink.lock().unwrap().push(line.to_owned())).await;
    drive(&journal, &registry, 8, 32, |_| {}).await; // a second drive replays, and runs nothing
    let lines = lines.lock().unwrap();
    assert_eq!(lines.len(), CALLS);
    assert!(
        lines.iter().all(|line| line.starts_with("done ")),
        "{:?}",
        lines.iter().find(|l| !l.starts_with("done"))
    );
    let counts = effect_counts(&effects);
    assert_eq!(counts.len(), CALLS);
    assert!(counts.values().all(|&n| n == 1));
}

/// Every call id ends with one side effect and a completed receipt, or as an unknown
/// outcome with at most one side effect; nothing reported done is lost. Then the host
/// resolves the unknowns from the side effects, and a last drive completes everything.
async fn verify(url: &str, effects: &Path, done: &HashSet<String>) -> usize {
    let journal = Journal::open_with(url, worker_options(url)).await.unwrap();
    let counts = effect_counts(effects);
    assert!(
        counts.values().all(|&n| n <= 1),
        "a call ran twice: {:?}",
        counts.iter().find(|(_, n)| **n > 1)
    );
    let mut unknown = 0;
    for i in 0..CALLS {
        let id = format!("c{i:04}");
        let record =
            journal.record(&id).await.unwrap().unwrap_or_else(|| panic!("{id} is in the journal"));
        let effects = counts.get(&id).copied().unwrap_or(0);
        match record.state {
            CallState::Completed => {
                assert_eq!(effects, 1, "{id} completed with {effects} side effects");
                assert!(record.receipt.unwrap().result.is_success());
            }
            CallState::UnknownOutcome => {
                assert!(!done.contains(&id), "{id} was reported done, then lost");
                unknown += 1;
                let resolution = if effects == 1 {
                    Resolution::TookEffect(ToolResult::ok(json!({"id": id}), "effect done"))
                } else {
                    Resolution::DidNotRun
                };
                journal.resolve(&id, resolution).await.unwrap();
            }
            other => panic!("{id} ended {other:?}"),
        }
    }
    for id in done {
        assert_eq!(
            journal.record(id).await.unwrap().unwrap().state,
            CallState::Completed,
            "{id} lost its receipt"
        );
    }
    let registry = Registry::builder()
        .register_all(tools(effects))
        .approval_key(journal.approval_key())
        .seal()
        .unwrap();
    drive(&journal, &registry, 99, 32, |line| assert!(line.starts_with("done "), "{line}")).await;
    let counts = effect_counts(effects);
    assert_eq!(counts.len(), CALLS);
    assert!(counts.values().all(|&n| n == 1), "after resolving, every call has exactly one effect");
    journal.close().await;
    unknown
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn sqlite_survives_twenty_sigkills_without_loss_or_repeats() {
    let fixture = Fixture::new(Backend::Sqlite).await;
    let effects = fixture.dir().join("effects.log");
    let mut done = HashSet::new();
    for round in 0..KILLS {
        let mut child = spawn_worker("drive", &fixture.url, &effects, round as u64);
        let lines = collect(&mut child);
        std::thread::sleep(Duration::from_millis(fastrand::u64(40..250)));
        child.kill().unwrap(); // SIGKILL
        child.wait().unwrap();
        done.extend(done_ids(&lines.join().unwrap()));
    }
    let last = run_to_end("drive", &fixture.url, &effects, 1000, Duration::from_secs(120));
    done.extend(done_ids(&last));
    let unknown = verify(&fixture.url, &effects, &done).await;
    eprintln!(
        "sqlite crash test: {} reported done before the last drive settled, {unknown} unknown outcomes",
        done.len()
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn three_postgres_processes_race_while_one_is_killed() {
    let fixture = Fixture::new(Backend::Postgres).await;
    let dir = tempfile::tempdir().unwrap();
    let effects = dir.path().join("effects.log");
    let mut steady: Vec<(Child, std::thread::JoinHandle<Vec<String>>)> = (0..2)
        .map(|i| {
            // One call at a time, so that they are still racing while the third is killed.
            let mut child = spawn_worker_with("drive", &fixture.url, &effects, 500 + i, 1);
            let lines = collect(&mut child);
            (child, lines)
        })
        .collect();
    let (mut done, mut raced) = (HashSet::new(), 0);
    for round in 0..KILLS {
        let mut child = spawn_worker("drive", &fixture.url, &effects, round as u64);
        let lines = collect(&mut child);
        // Longer than on SQLite: a PostgreSQL worker takes a while to log in.
        std::thread::sleep(Duration::from_millis(fastrand::u64(150..500)));
        child.kill().unwrap();
        child.wait().unwrap();
        let reported: Vec<String> = done_ids(&lines.join().unwrap()).collect();
        raced += reported.len();
        done.extend(reported);
    }
    for (mut child, lines) in steady.drain(..) {
        let started = Instant::now();
        while child.try_wait().unwrap().is_none() {
            assert!(started.elapsed() < Duration::from_secs(120), "a steady worker did not finish");
            std::thread::sleep(Duration::from_millis(20));
        }
        done.extend(done_ids(&lines.join().unwrap()));
    }
    let unknown = verify(&fixture.url, &effects, &done).await;
    eprintln!(
        "postgres crash test: {} reported done, {unknown} unknown outcomes, {raced} reported by the killed worker",
        done.len()
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_suspension_survives_its_process_and_resumes_once_elsewhere() {
    let fixture = Fixture::new(Backend::Sqlite).await;
    let effects = fixture.dir().join("effects.log");
    let mut child = spawn_worker("suspend", &fixture.url, &effects, 0);
    let stdout = child.stdout.take().unwrap();
    let mut parked = Vec::new();
    for line in BufReader::new(stdout).lines().map_while(Result::ok) {
        if let Some(id) = after(&line, "parked ") {
            parked.push(id.to_owned());
            if parked.len() == 2 {
                break;
            }
        }
    }
    child.kill().unwrap(); // process A dies while its calls wait
    child.wait().unwrap();
    assert_eq!(parked.len(), 2);

    // Process B: a journal and registry of its own, with the journal's approval key.
    let journal = Journal::open(&fixture.url).await.unwrap();
    let registry = Registry::builder()
        .register_all(tools(&effects))
        .approval_key(journal.approval_key())
        .seal()
        .unwrap();
    let pending = journal.pending(&PendingFilter::all()).await.unwrap();
    let ids: Vec<&str> = pending.iter().map(|s| s.request.id.as_str()).collect();
    assert_eq!(ids, parked.iter().map(String::as_str).collect::<Vec<_>>());
    journal.answer(toolwire::Answer::accept(parked[0].clone(), json!(null))).await.unwrap();
    journal.answer(toolwire::Answer::accept(parked[1].clone(), json!("prod"))).await.unwrap();
    for id in &parked {
        let receipt = journal.resume(&registry, id).await.unwrap();
        assert!(receipt.result.is_success(), "{:?}", receipt.result);
    }
    let lines = std::fs::read_to_string(&effects).unwrap();
    assert_eq!(
        lines, "s1 deployed\ns2 answered \"prod\"\n",
        "each handler ran once, the second with the answer"
    );
    // Delivered again, neither runs.
    let again =
        journal.invoke(&registry, "deploy", json!({"env": "prod"})).call_id("s1").await.unwrap();
    assert!(again.result.is_success());
    assert_eq!(std::fs::read_to_string(&effects).unwrap(), lines);
}
