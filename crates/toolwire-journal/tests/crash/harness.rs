//! The crash tests' harness: the tools whose side effects are lines in a file, the drive of
//! 1,000 call ids, the worker processes, and reading their output.

use std::collections::HashMap;
use std::io::{BufRead, BufReader, Write};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::sync::Arc;
use std::time::{Duration, Instant};

use serde_json::{Value, json};
use toolwire::{FailureKind, Registry, Tool, ToolContext, ToolResult};
use toolwire_journal::{Journal, JournalOptions};

/// How many call ids every run drives.
pub(crate) const CALLS: usize = 1000;
/// How many times a worker is killed.
pub(crate) const KILLS: usize = 20;

/// The side effect: one line per run, appended with a single write, so that a SIGKILL
/// leaves it whole or absent.
pub(crate) fn append_line(path: &Path, line: &str) {
    let mut file = std::fs::OpenOptions::new()
        .create(true)
        .append(true)
        .open(path)
        .expect("the effects file opens");
    file.write_all(format!("{line}\n").as_bytes()).expect("the effect is written");
}

/// The tools of every worker: `effect` (not idempotent) appends its call id; `deploy` needs
/// approval and appends when it runs; `ask` asks for input and appends the answer.
pub(crate) fn tools(effects: &Path) -> Vec<Tool> {
    let (a, b, c) = (effects.to_owned(), effects.to_owned(), effects.to_owned());
    let effect = Tool::define("effect")
        .execute(move |_args: Value, ctx: ToolContext| {
            let path = a.clone();
            async move {
                let id = ctx.call_id().map(|id| id.to_string()).unwrap_or_default();
                append_line(&path, &id);
                tokio::time::sleep(Duration::from_millis(fastrand::u64(0..3))).await;
                ToolResult::ok(json!({"id": id}), "effect done")
            }
        })
        .build()
        .expect("effect builds");
    let deploy = Tool::define("deploy")
        .needs_approval(true)
        .execute_sync(move |_args: Value, ctx: ToolContext| {
            append_line(
                &b,
                &format!("{} deployed", ctx.call_id().map(|id| id.as_str()).unwrap_or("")),
            );
            ToolResult::ok(json!({}), "deployed")
        })
        .build()
        .expect("deploy builds");
    let ask = Tool::define("ask")
        .asks_for_input(true)
        .execute_sync(move |_args: Value, ctx: ToolContext| match ctx.answer() {
            Some(answer) => {
                append_line(
                    &c,
                    &format!(
                        "{} answered {}",
                        ctx.call_id().map(|id| id.as_str()).unwrap_or(""),
                        answer.data
                    ),
                );
                ToolResult::ok(json!({"answer": answer.data}), "answered")
            }
            None => ToolResult::pending(toolwire::Request::new("input", "which environment?")),
        })
        .build()
        .expect("ask builds");
    vec![effect, deploy, ask]
}

/// Drives every call id once, `concurrency` at a time, in an order drawn from `seed`, and
/// writes a line per outcome to `out` as soon as the journal has it: `done ID`, `unknown ID`
/// or `error ID MESSAGE`.
pub(crate) async fn drive(
    journal: &Journal,
    registry: &Registry,
    seed: u64,
    concurrency: usize,
    out: impl Fn(&str) + Send + Sync + 'static,
) {
    let mut ids: Vec<usize> = (0..CALLS).collect();
    fastrand::Rng::with_seed(seed).shuffle(&mut ids);
    let gate = Arc::new(tokio::sync::Semaphore::new(concurrency));
    let out = Arc::new(out);
    let mut tasks = Vec::new();
    for i in ids {
        let (journal, registry, gate, out) =
            (journal.clone(), registry.clone(), Arc::clone(&gate), Arc::clone(&out));
        tasks.push(tokio::spawn(async move {
            let _permit = gate.acquire().await;
            let id = format!("c{i:04}");
            let call = journal
                .invoke(&registry, "effect", json!({"i": i}))
                .call_id(id.as_str())
                .timeout(Duration::from_secs(60));
            match call.await {
                Ok(r) if r.result.is_success() => out(&format!("done {id}")),
                Ok(r) if r.result.failure_kind() == Some(FailureKind::UnknownOutcome) => {
                    out(&format!("unknown {id}"))
                }
                Ok(r) => out(&format!("error {id} {:?}", r.result.text())),
                Err(e) => out(&format!("error {id} {e}")),
            }
        }));
    }
    for task in tasks {
        let _ = task.await;
    }
}

pub(crate) fn worker_options(url: &str) -> JournalOptions {
    let lease = if url.starts_with("postgres") { 1000 } else { 300 };
    JournalOptions::default()
        .lease(Duration::from_millis(lease))
        .poll_interval(Duration::from_millis(10))
}

pub(crate) async fn worker_drive() {
    let url = std::env::var("TW_URL").unwrap();
    let effects = PathBuf::from(std::env::var("TW_EFFECTS").unwrap());
    let seed: u64 = std::env::var("TW_SEED").unwrap().parse().unwrap();
    let concurrency: usize =
        std::env::var("TW_CONCURRENCY").ok().and_then(|c| c.parse().ok()).unwrap_or(32);
    let journal = Journal::open_with(&url, worker_options(&url)).await.unwrap();
    let registry = crate::common::registry(&journal, tools(&effects));
    drive(&journal, &registry, seed, concurrency, |line| {
        let mut out = std::io::stdout().lock();
        let _ = writeln!(out, "{line}");
        let _ = out.flush();
    })
    .await;
    journal.close().await;
}

pub(crate) async fn worker_suspend() {
    let url = std::env::var("TW_URL").unwrap();
    let effects = PathBuf::from(std::env::var("TW_EFFECTS").unwrap());
    let journal = Journal::open_with(&url, worker_options(&url)).await.unwrap();
    let registry = crate::common::registry(&journal, tools(&effects));
    let s1 =
        journal.invoke(&registry, "deploy", json!({"env": "prod"})).call_id("s1").await.unwrap();
    let s2 = journal.invoke(&registry, "ask", json!({})).call_id("s2").await.unwrap();
    for receipt in [s1, s2] {
        println!("parked {}", receipt.result.pending_request().unwrap().id);
    }
    std::io::stdout().flush().unwrap();
    tokio::time::sleep(Duration::from_secs(120)).await;
}

/// A worker process of `mode` on the journal at `url`.
pub(crate) fn spawn_worker(mode: &str, url: &str, effects: &Path, seed: u64) -> Child {
    spawn_worker_with(mode, url, effects, seed, 32)
}

/// A worker process that drives `concurrency` calls at a time.
pub(crate) fn spawn_worker_with(
    mode: &str,
    url: &str,
    effects: &Path,
    seed: u64,
    concurrency: usize,
) -> Child {
    Command::new(std::env::current_exe().unwrap())
        .env("TW_CONCURRENCY", concurrency.to_string())
        .args(["--exact", "crash::worker_process", "--nocapture", "--test-threads=1"])
        .env("TOOLWIRE_CRASH_WORKER", mode)
        .env("TW_URL", url)
        .env("TW_EFFECTS", effects)
        .env("TW_SEED", seed.to_string())
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .expect("a worker process starts")
}

/// Reads a worker's output lines on a thread of its own, until the worker exits.
pub(crate) fn collect(child: &mut Child) -> std::thread::JoinHandle<Vec<String>> {
    let stdout = child.stdout.take().unwrap();
    std::thread::spawn(move || BufReader::new(stdout).lines().map_while(Result::ok).collect())
}

/// Runs a worker until it exits, at most `limit`.
pub(crate) fn run_to_end(
    mode: &str,
    url: &str,
    effects: &Path,
    seed: u64,
    limit: Duration,
) -> Vec<String> {
    let mut child = spawn_worker(mode, url, effects, seed);
    let lines = collect(&mut child);
    let started = Instant::now();
    while child.try_wait().unwrap().is_none() {
        if started.elapsed() > limit {
            let _ = child.kill();
            panic!("a worker did not finish within {limit:?}");
        }
        std::thread::sleep(Duration::from_millis(20));
    }
    lines.join().unwrap()
}

/// How many side effects each call id has.
pub(crate) fn effect_counts(path: &Path) -> HashMap<String, usize> {
    let mut counts = HashMap::new();
    for line in std::fs::read_to_string(path).unwrap_or_default().lines() {
        *counts.entry(line.to_owned()).or_insert(0) += 1;
    }
    counts
}

/// What follows `tag` in a worker's line; the test harness may print its own text before the
/// first one.
pub(crate) fn after<'a>(line: &'a str, tag: &str) -> Option<&'a str> {
    line.find(tag).map(|at| &line[at + tag.len()..])
}

/// Ids the workers reported done.
pub(crate) fn done_ids(lines: &[String]) -> impl Iterator<Item = String> + '_ {
    lines.iter().filter_map(|line| after(line, "done ").map(str::to_owned))
}
