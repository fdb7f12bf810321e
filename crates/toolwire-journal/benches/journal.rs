//! The journal's cost, each figure beside a baseline measured in the same run:
//!
//! - `sqlite_c64`: 64 concurrent journaled calls on SQLite with group commit, against a naive
//!   journal that commits every write on its own, and against the disk's raw fsync rate;
//! - `sqlite_c1`: one call at a time, journaled and not; and a paused agent run's writes;
//! - `replay`: a completed call id delivered again, on SQLite;
//! - `postgres_3x64`: three journal instances (three pools, three owners) sharing one
//!   PostgreSQL journal, 64 calls each at once, on the tests' server: `TOOLWIRE_TEST_PG_URL`,
//!   or else a throwaway server the bench starts (see `toolwire_test_support::pg`).

// A benchmark that cannot set up stops: it may unwrap, expect and panic.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use std::io::Write;
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::{Duration, Instant};

use criterion::{Criterion, criterion_group, criterion_main};
use serde_json::json;
use toolwire::{Registry, Tool, ToolResult};
use toolwire_journal::{Journal, JournalOptions};
use toolwire_test_support::pg;

static NEXT: AtomicU64 = AtomicU64::new(0);

fn next_id() -> String {
    format!("b{}", NEXT.fetch_add(1, Ordering::Relaxed))
}

fn registry(journal: &Journal) -> Registry {
    let echo = Tool::define("echo")
        .execute_sync(|args, _| ToolResult::ok(args.clone(), "ok"))
        .build()
        .unwrap();
    Registry::builder().register(echo).approval_key(journal.approval_key()).seal().unwrap()
}

fn runtime() -> tokio::runtime::Runtime {
    tokio::runtime::Builder::new_multi_thread().worker_threads(2).enable_all().build().unwrap()
}

/// Runs `per_iter` fresh journaled calls at once on each of `journals`, `iters` times.
async fn concurrent(journals: &[(Journal, Registry)], per_iter: usize, iters: u64) -> Duration {
    let start = Instant::now();
    for _ in 0..iters {
        let mut tasks = Vec::with_capacity(per_iter * journals.len());
        for (journal, registry) in journals {
            for _ in 0..per_iter {
                let call = journal.invoke(registry, "echo", json!({"n": 1})).call_id(next_id());
                tasks.push(tokio::spawn(std::future::IntoFuture::into_future(call)));
            }
        }
        for task in tasks {
            task.await.unwrap().unwrap();
        }
    }
    start.elapsed()
}

/// The disk's fsync: an 8-byte write and `fdatasync`, in the journal's folder.
fn fsync_probe(
    c: &mut criterion::BenchmarkGroup<'_, criterion::measurement::WallTime>,
    dir: &std::path::Path,
) {
    let mut file = std::fs::File::create(dir.join("probe")).unwrap();
    c.bench_function("fsync_probe", |b| {
        b.iter(|| {
            file.write_all(b"12345678").unwrap();
            file.sync_data().unwrap();
        })
    });
}

fn sqlite_c64(c: &mut Criterion) {
    let rt = runtime();
    let dir = tempfile::tempdir().unwrap();
    let open = |name: &str, options: JournalOptions| {
        let journal = rt.block_on(Journal::sqlite_with(dir.path().join(name), options)).unwrap();
        let registry = registry(&journal);
        vec![(journal, registry)]
    };
    let grouped = open("grouped.db", JournalOptions::default());
    let naive = open("naive.db", JournalOptions::default().group_commit(1));
    let mut group = c.benchmark_group("sqlite_c64");
    group.sample_size(20).measurement_time(Duration::from_secs(6));
    fsync_probe(&mut group, dir.path());
    group.bench_function("naive_64_calls", |b| {
        b.to_async(&rt).iter_custom(|iters| concurrent(&naive, 64, iters))
    });
    group.bench_function("group_commit_64_calls", |b| {
        b.to_async(&rt).iter_custom(|iters| concurrent(&grouped, 64, iters))
    });
    group.finish();
    // With a filter that runs one of the two, this and `strace -f -c -e trace=fdatasync,fsync`
    // give the calls per fsync.
    eprintln!("journaled calls so far: {}", NEXT.load(Ordering::Relaxed));
}

fn sqlite_c1(c: &mut Criterion) {
    let rt = runtime();
    let dir = tempfile::tempdir().unwrap();
    let journal = rt
        .block_on(Journal::sqlite_with(dir.path().join("c1.db"), JournalOptions::default()))
        .unwrap();
    let registry = registry(&journal);
    let mut group = c.benchmark_group("sqlite_c1");
    group.sample_size(20).measurement_time(Duration::from_secs(5));
    fsync_probe(&mut group, dir.path());
    group.bench_function("unjournaled_invoke", |b| {
        b.to_async(&rt).iter(|| {
            std::future::IntoFuture::into_future(
                registry.invoke("echo", json!({"n": 1})).call_id(next_id()),
            )
        })
    });
    group.bench_function("journaled_invoke", |b| {
        b.to_async(&rt).iter(|| async {
            journal.invoke(&registry, "echo", json!({"n": 1})).call_id(next_id()).await.unwrap()
        })
    });
    rt.block_on(async {
        journal.invoke(&registry, "echo", json!({"n": 1})).call_id("done").await.unwrap()
    });
    group.bench_function("replay_completed", |b| {
        b.to_async(&rt).iter(|| async {
            journal.invoke(&registry, "echo", json!({"n": 1})).call_id("done").await.unwrap()
        })
    });
    // Another instance on the same file (another process, say) has no receipt in memory:
    // its replay reads the journal.
    let cold = rt
        .block_on(Journal::sqlite_with(dir.path().join("c1.db"), JournalOptions::default()))
        .unwrap();
    let mut n = 0u64;
    let completed: Vec<String> = (0..20_000).map(|_| next_id()).collect();
    for chunk in completed.chunks(256) {
        rt.block_on(async {
            let calls = chunk.iter().map(|id| {
                tokio::spawn(std::future::IntoFuture::into_future(
                    journal.invoke(&registry, "echo", json!({"n": 1})).call_id(id.as_str()),
                ))
            });
            for call in calls.collect::<Vec<_>>() {
                call.await.unwrap().unwrap();
            }
        });
    }
    group.bench_function("replay_completed_from_disk", |b| {
        b.to_async(&rt).iter(|| {
            n += 1;
            let id = completed[usize::try_from(n).unwrap() % completed.len()].clone();
            let call = cold.invoke(&registry, "echo", json!({"n": 1})).call_id(id);
            async move { call.await.unwrap() }
        })
    });
    // A paused agent run's life in the journal: saved waiting on one request, answered,
    // claimed by a resume, removed once it finished. Four commits.
    let state = json!({"messages": [{"role": "user", "content": "deploy"}], "turns": 1});
    group.bench_function("paused_run_save_answer_claim_remove", |b| {
        b.to_async(&rt).iter(|| async {
            let run_id = next_id();
            let request = toolwire::Request::new("approval", "deploy?");
            let answer = toolwire::Answer::accept(request.id.clone(), json!(null));
            let run = toolwire_journal::PausedRun::new(run_id.as_str(), "openai:m", state.clone())
                .wait("c1", "deploy", request);
            journal.save_run(&run).await.unwrap();
            journal.answer_run(&answer).await.unwrap();
            journal.claim_run(&run_id).await.unwrap();
            journal.remove_run(&run_id).await.unwrap();
        })
    });
    // An approval's whole life: parked, answered, resumed; with the approval spent in the
    // journal (one more commit) and, as the baseline, in the registry's memory.
    let spending = gated(&journal, true);
    let in_memory = gated(&journal, false);
    for (name, registry) in
        [("approval_spent_in_memory", &in_memory), ("approval_spent_in_journal", &spending)]
    {
        group.bench_function(name, |b| {
            b.to_async(&rt).iter(|| async {
                let call_id = next_id();
                let parked = journal
                    .invoke(registry, "deploy", json!({"n": 1}))
                    .call_id(call_id.as_str())
                    .await
                    .unwrap();
                let id = parked.result.pending_request().unwrap().id.clone();
                journal.answer(toolwire::Answer::accept(id.clone(), json!(null))).await.unwrap();
                let done = journal.resume(registry, &id).await.unwrap();
                assert!(done.result.is_success());
            })
        });
    }
    group.finish();
}

/// A registry of a `deploy` tool that needs approval, spending approvals in the journal or in
/// its own memory.
fn gated(journal: &Journal, in_journal: bool) -> Registry {
    let deploy = Tool::define("deploy")
        .needs_approval(true)
        .execute_sync(|args, _| ToolResult::ok(args, "deployed"))
        .build()
        .unwrap();
    let builder = Registry::builder().register(deploy).approval_key(journal.approval_key());
    let builder = if in_journal { builder.approval_store(journal.clone()) } else { builder };
    builder.seal().unwrap()
}

fn postgres_3x64(c: &mut Criterion) {
    let rt = runtime();
    let url = rt.block_on(pg::fresh_database("toolwire_bench"));
    let journals: Vec<(Journal, Registry)> = (0..3)
        .map(|_| {
            let journal = rt
                .block_on(Journal::open_with(&url, JournalOptions::default().connections(32)))
                .unwrap();
            let registry = registry(&journal);
            (journal, registry)
        })
        .collect();
    let mut group = c.benchmark_group("postgres_3x64");
    group.sample_size(10).measurement_time(Duration::from_secs(8));
    group.bench_function("one_instance_64_calls", |b| {
        b.to_async(&rt).iter_custom(|iters| concurrent(&journals[..1], 64, iters))
    });
    group.bench_function("three_instances_192_calls", |b| {
        b.to_async(&rt).iter_custom(|iters| concurrent(&journals, 64, iters))
    });
    group.finish();
}

criterion_group!(benches, sqlite_c64, sqlite_c1, postgres_3x64);
criterion_main!(benches);
