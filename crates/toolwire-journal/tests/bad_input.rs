//! Bad input gets a clear error, and nothing recorded before is lost: files that are not
//! journals, newer schemas, locked or full databases.

use std::sync::Arc;
use std::sync::atomic::AtomicUsize;
use std::time::Duration;

use serde_json::json;
use sqlx::Connection;
use toolwire_journal::{Journal, JournalErrorKind, JournalOptions};

use crate::common::{Backend, Fixture, count, counting, registry};

#[tokio::test]
async fn a_file_that_is_not_a_database_is_not_a_journal() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("notes.txt");
    std::fs::write(
        &path,
        "these are my notes, not a database, and they are long enough to matter\n".repeat(100),
    )
    .unwrap();
    let error = Journal::open(&format!("sqlite:{}", path.display())).await.unwrap_err();
    assert_eq!(error.kind(), JournalErrorKind::NotAJournal, "{error}");
    assert!(
        error.to_string().contains("not a journal") && error.to_string().contains("notes.txt"),
        "{error}"
    );
    assert!(
        std::fs::read_to_string(&path).unwrap().starts_with("these are my notes"),
        "the file is untouched"
    );
}

#[tokio::test]
async fn an_sqlite_database_of_something_else_is_not_a_journal() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("app.db");
    let mut conn =
        sqlx::SqliteConnection::connect(&format!("sqlite://{}?mode=rwc", path.display()))
            .await
            .unwrap();
    sqlx::query("CREATE TABLE users (id INTEGER PRIMARY KEY)").execute(&mut conn).await.unwrap();
    conn.close().await.unwrap();
    let error = Journal::open(&format!("sqlite:{}", path.display())).await.unwrap_err();
    assert_eq!(error.kind(), JournalErrorKind::NotAJournal);
    assert!(error.to_string().contains("users"), "{error}");
}

#[tokio::test]
async fn a_journal_of_a_newer_schema_is_refused() {
    let fixture = Fixture::new(Backend::Sqlite).await;
    fixture.open().await.close().await;
    let path = fixture.dir().join("journal.db");
    let mut conn =
        sqlx::SqliteConnection::connect(&format!("sqlite://{}", path.display())).await.unwrap();
    sqlx::query(
        "INSERT INTO _sqlx_migrations (version, description, success, checksum, execution_time) \
         VALUES (7, 'from the future', 1, x'00', 0)",
    )
    .execute(&mut conn)
    .await
    .unwrap();
    conn.close().await.unwrap();
    let error = Journal::open(&fixture.url).await.unwrap_err();
    assert_eq!(error.kind(), JournalErrorKind::NewerSchema);
    assert!(error.to_string().contains("schema version 7"), "{error}");
}

#[tokio::test]
async fn a_postgres_journal_of_a_newer_schema_is_refused() {
    let fixture = Fixture::new(Backend::Postgres).await;
    fixture.open().await.close().await;
    let mut conn = sqlx::PgConnection::connect(&fixture.url).await.unwrap();
    sqlx::query(
        "INSERT INTO _sqlx_migrations (version, description, success, checksum, execution_time) \
         VALUES (7, 'from the future', true, '\\x00', 0)",
    )
    .execute(&mut conn)
    .await
    .unwrap();
    conn.close().await.unwrap();
    let error = Journal::open(&fixture.url).await.unwrap_err();
    assert_eq!(error.kind(), JournalErrorKind::NewerSchema, "{error}");
}

#[tokio::test]
async fn an_unreachable_postgres_is_unavailable() {
    let error = Journal::open("postgres://nobody:secret@127.0.0.1:1/none").await.unwrap_err();
    assert_eq!(error.kind(), JournalErrorKind::Unavailable, "{error}");
    assert!(!error.to_string().contains("secret"), "the password stays out of messages: {error}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_locked_database_fails_the_call_before_the_handler_runs() {
    let fixture = Fixture::new(Backend::Sqlite).await;
    let options = JournalOptions::default().busy_timeout(Duration::from_millis(100));
    let journal = fixture.open_with(options).await;
    let runs = Arc::new(AtomicUsize::new(0));
    let registry = registry(&journal, vec![counting("send", &runs)]);
    journal.invoke(&registry, "send", json!({})).call_id("before").await.unwrap();

    let path = fixture.dir().join("journal.db");
    let mut locker =
        sqlx::SqliteConnection::connect(&format!("sqlite://{}", path.display())).await.unwrap();
    sqlx::query("BEGIN EXCLUSIVE").execute(&mut locker).await.unwrap();
    let error = journal.invoke(&registry, "send", json!({})).call_id("during").await.unwrap_err();
    assert_eq!(error.kind(), JournalErrorKind::Locked, "{error}");
    assert!(error.is_locked() && error.to_string().contains("locked"), "{error}");
    assert_eq!(count(&runs), 1, "the handler did not run");
    sqlx::query("ROLLBACK").execute(&mut locker).await.unwrap();
    locker.close().await.unwrap();

    let after = journal.invoke(&registry, "send", json!({})).call_id("during").await.unwrap();
    assert!(after.result.is_success());
    assert_eq!(count(&runs), 2);
    let replay = journal.invoke(&registry, "send", json!({})).call_id("before").await.unwrap();
    assert!(replay.result.is_success(), "what was recorded before is still there");
    assert_eq!(count(&runs), 2);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_full_disk_fails_calls_cleanly_and_keeps_what_was_recorded() {
    let fixture = Fixture::new(Backend::Sqlite).await;
    let journal = fixture.open_with(JournalOptions::default().max_size(256 * 1024)).await;
    let runs = Arc::new(AtomicUsize::new(0));
    let registry = registry(&journal, vec![counting("store", &runs)]);
    let blob = "x".repeat(8 * 1024);
    let mut completed = Vec::new();
    let mut full = None;
    for i in 0..200 {
        let id = format!("c{i}");
        match journal.invoke(&registry, "store", json!({"blob": blob})).call_id(id.as_str()).await {
            Ok(receipt) => completed.push((id, receipt)),
            Err(error) => {
                full = Some(error);
                break;
            }
        }
    }
    let error = full.expect("the capped journal fills up");
    assert_eq!(error.kind(), JournalErrorKind::DiskFull, "{error}");
    assert!(error.is_disk_full() && error.to_string().contains("full"), "{error}");
    // Either the claim failed (the handler never ran) or the completion did (its receipt is
    // handed back): never a silent loss.
    let ran = count(&runs);
    assert!(ran == completed.len() || (ran == completed.len() + 1 && error.receipt().is_some()));
    assert!(completed.len() > 3);
    for (id, receipt) in &completed {
        let replay = journal
            .invoke(&registry, "store", json!({"blob": blob}))
            .call_id(id.as_str())
            .await
            .unwrap();
        assert_eq!(&replay, receipt);
    }
    assert_eq!(count(&runs), ran, "replays ran nothing");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_answer_to_a_request_bound_to_other_arguments_is_refused() {
    let fixture = Fixture::new(Backend::Sqlite).await;
    let journal = fixture.open().await;
    let runs = Arc::new(AtomicUsize::new(0));
    let tool = toolwire::Tool::define("deploy")
        .needs_approval(true)
        .execute_sync(|_, _| toolwire::ToolResult::ok(json!({}), "deployed"))
        .build()
        .unwrap();
    let registry = registry(&journal, vec![tool, counting("other", &runs)]);
    let parked =
        journal.invoke(&registry, "deploy", json!({"env": "prod"})).call_id("c1").await.unwrap();
    let id = parked.result.pending_request().unwrap().id.clone();
    // Someone with access to the file rewrites the call's arguments behind the request.
    let path = fixture.dir().join("journal.db");
    let mut conn =
        sqlx::SqliteConnection::connect(&format!("sqlite://{}", path.display())).await.unwrap();
    sqlx::query("UPDATE journal_calls SET digest = 'forged' WHERE call_id = 'c1'")
        .execute(&mut conn)
        .await
        .unwrap();
    conn.close().await.unwrap();
    let error = journal.answer(toolwire::Answer::accept(id, json!(null))).await.unwrap_err();
    assert_eq!(error.kind(), JournalErrorKind::AnswerMismatch, "{error}");
    assert!(error.to_string().contains("other arguments"), "{error}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_journal_file_name_may_hold_spaces_and_url_characters() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("my journal #1?.db");
    let journal = Journal::sqlite_with(&path, JournalOptions::default()).await.unwrap();
    let runs = Arc::new(AtomicUsize::new(0));
    let registry = registry(&journal, vec![counting("send", &runs)]);
    journal.invoke(&registry, "send", json!({})).call_id("c1").await.unwrap();
    journal.close().await;
    assert!(path.exists(), "the journal is the file named, not another");
    let again = Journal::sqlite_with(&path, JournalOptions::default()).await.unwrap();
    assert!(again.record("c1").await.unwrap().is_some());
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_journal_file_name_may_hold_percent_signs() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("100% sure %20 &=+.db");
    let journal = Journal::sqlite_with(&path, JournalOptions::default()).await.unwrap();
    let runs = Arc::new(AtomicUsize::new(0));
    let registry = registry(&journal, vec![counting("send", &runs)]);
    journal.invoke(&registry, "send", json!({})).call_id("c1").await.unwrap();
    journal.close().await;
    assert!(path.exists(), "the journal is the file named, not another");
    assert!(!dir.path().join("100% sure   &=+.db").exists(), "%20 was not decoded");
    let by_url = Journal::open(&format!("sqlite:{}", path.display())).await.unwrap();
    assert!(by_url.record("c1").await.unwrap().is_some());
}
