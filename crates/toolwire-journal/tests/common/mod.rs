//! What the journal's tests share: a fresh journal on either backend (PostgreSQL's server is
//! [`pg`]'s), and tools that count their runs.
#![allow(dead_code, unreachable_pub)]

pub use toolwire_test_support::pg;

use std::future::IntoFuture;
use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::Duration;

use serde_json::{Value, json};
use toolwire::{Registry, Tool, ToolResult};
use toolwire_journal::{CallState, Journal, JournalOptions};

/// Which backend a test runs on.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Backend {
    Sqlite,
    Postgres,
}

/// A journal of the test's own: a fresh SQLite file in a temporary folder, or a fresh
/// PostgreSQL database.
pub struct Fixture {
    pub url: String,
    pub backend: Backend,
    _dir: Option<tempfile::TempDir>,
}

impl Fixture {
    pub async fn new(backend: Backend) -> Self {
        match backend {
            Backend::Sqlite => {
                let dir = tempfile::tempdir().expect("a temporary folder");
                let url = format!("sqlite:{}", dir.path().join("journal.db").display());
                Fixture { url, backend, _dir: Some(dir) }
            }
            Backend::Postgres => Fixture { url: fresh_pg_database().await, backend, _dir: None },
        }
    }

    /// A journal instance on the fixture: each one stands for a process of its own.
    pub async fn open(&self) -> Journal {
        self.open_with(options(self.backend)).await
    }

    pub async fn open_with(&self, options: JournalOptions) -> Journal {
        Journal::open_with(&self.url, options).await.expect("the journal opens")
    }

    /// The folder of an SQLite fixture.
    pub fn dir(&self) -> &std::path::Path {
        self._dir.as_ref().expect("an SQLite fixture").path()
    }
}

/// Short leases, so that a "dead" process's calls lapse quickly; longer on PostgreSQL, whose
/// connections take longer to open.
pub fn options(backend: Backend) -> JournalOptions {
    let lease = match backend {
        Backend::Sqlite => Duration::from_millis(300),
        Backend::Postgres => Duration::from_millis(1000),
    };
    JournalOptions::default().lease(lease).poll_interval(Duration::from_millis(10))
}

/// Creates a database of its own on the test server (see [`pg`]); fails (never skips) when
/// there is no server.
pub async fn fresh_pg_database() -> String {
    pg::fresh_database("toolwire_test").await
}

/// A tool that counts its runs and echoes its arguments.
pub fn counting(name: &str, runs: &Arc<AtomicUsize>) -> Tool {
    let runs = Arc::clone(runs);
    Tool::define(name)
        .execute_sync(move |args: Value, _| {
            runs.fetch_add(1, Ordering::SeqCst);
            ToolResult::ok(json!({"echo": args}), "done")
        })
        .build()
        .expect("the tool builds")
}

/// A tool that counts its runs and takes `delay` each time.
pub fn slow(name: &str, runs: &Arc<AtomicUsize>, delay: Duration, idempotent: bool) -> Tool {
    let runs = Arc::clone(runs);
    Tool::define(name)
        .idempotent(idempotent)
        .execute(move |args: Value, _| {
            let runs = Arc::clone(&runs);
            async move {
                runs.fetch_add(1, Ordering::SeqCst);
                tokio::time::sleep(delay).await;
                ToolResult::ok(json!({"echo": args}), "slow done")
            }
        })
        .build()
        .expect("the tool builds")
}

/// A registry of `tools`, sealed with the journal's approval key.
pub fn registry(journal: &Journal, tools: Vec<Tool>) -> Registry {
    Registry::builder()
        .register_all(tools)
        .approval_key(journal.approval_key())
        .seal()
        .expect("the registry seals")
}

pub fn count(runs: &Arc<AtomicUsize>) -> usize {
    runs.load(Ordering::SeqCst)
}

/// Starts a call in `journal` and drops it mid-handler, as a process that dies would leave it.
pub async fn die_mid_call(journal: &Journal, registry: &Registry, tool: &str, id: &str) {
    let call =
        tokio::spawn(journal.invoke(registry, tool, json!({"x": 1})).call_id(id).into_future());
    until_running(journal, id).await;
    tokio::time::sleep(Duration::from_millis(50)).await;
    call.abort();
    let _ = call.await;
}

/// Waits until `id` is running in some journal instance.
pub async fn until_running(journal: &Journal, id: &str) {
    for _ in 0..1000 {
        if journal.record(id).await.unwrap().is_some_and(|r| r.state == CallState::Running) {
            return;
        }
        tokio::time::sleep(Duration::from_millis(5)).await;
    }
    panic!("call {id} never started");
}

/// Generates one test per case and backend: `sqlite::case` and `postgres::case`.
#[macro_export]
macro_rules! on_both_backends {
    ($($case:ident),* $(,)?) => {
        mod sqlite {
            $(
                #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
                async fn $case() {
                    super::$case($crate::common::Backend::Sqlite).await;
                }
            )*
        }
        mod postgres {
            $(
                #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
                async fn $case() {
                    super::$case($crate::common::Backend::Postgres).await;
                }
            )*
        }
    };
}
