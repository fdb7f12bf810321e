//! Paused agent runs: saved with their requests, answered, claimed by one resume at a time,
//! and removed, on both backends and across journal instances (each standing for a process).

use std::time::Duration;

use serde_json::json;
use toolwire::{Answer, Request};
use toolwire_journal::{JournalErrorKind, PausedRun};

use crate::common::{self, Backend, Fixture};

on_both_backends!(
    a_paused_run_reads_back_in_another_process,
    answers_are_recorded_once_and_kept_across_saves,
    one_resume_claims_a_run_at_a_time,
    a_lapsed_run_request_refuses_its_answer,
    a_removed_run_is_gone_with_its_requests,
);

fn request(id: &str, prompt: &str) -> Request {
    let mut request = Request::new("approval", prompt);
    request.id = id.to_owned();
    request
}

fn paused(run_id: &str, requests: &[&str]) -> PausedRun {
    let state =
        json!({"run_id": run_id, "messages": [{"role": "user", "content": "deploy"}], "n": 1.5});
    let mut run = PausedRun::new(run_id, "openai:test-model", state);
    for (i, id) in requests.iter().enumerate() {
        run = run.wait(format!("call_{i}"), "deploy", request(id, &format!("allow {id}?")));
    }
    run
}

async fn a_paused_run_reads_back_in_another_process(backend: Backend) {
    let fixture = Fixture::new(backend).await;
    let first = fixture.open().await;
    let saved = paused("run-1", &["apr-a", "apr-b"]);
    first.save_run(&saved).await.unwrap();
    first.save_run(&paused("run-2", &["apr-c"])).await.unwrap();

    let second = fixture.open().await;
    let run = second.run("run-1").await.unwrap().expect("the run is kept");
    assert_eq!(run.run_id, "run-1");
    assert_eq!(run.label, "openai:test-model");
    assert_eq!(run.state, saved.state);
    assert_eq!(run.waiting, saved.waiting);
    assert_eq!(run.claimed_until, None);
    let ids: Vec<String> = second.runs().await.unwrap().into_iter().map(|r| r.run_id).collect();
    assert_eq!(ids, ["run-1", "run-2"]);
    assert!(second.run("run-9").await.unwrap().is_none());
}

async fn answers_are_recorded_once_and_kept_across_saves(backend: Backend) {
    let fixture = Fixture::new(backend).await;
    let journal = fixture.open().await;
    journal.save_run(&paused("run-1", &["apr-a", "apr-b"])).await.unwrap();

    let accepted = Answer::accept("apr-a", json!(null));
    assert_eq!(journal.answer_run(&accepted).await.unwrap(), "run-1");
    let again = journal.answer_run(&Answer::decline("apr-a", "no")).await.unwrap_err();
    assert_eq!(again.kind(), JournalErrorKind::AlreadyAnswered);
    assert!(again.to_string().contains("already accepted"), "{again}");
    let unknown = journal.answer_run(&Answer::accept("apr-zz", json!(null))).await.unwrap_err();
    assert_eq!(unknown.kind(), JournalErrorKind::UnknownRequest);
    assert!(unknown.to_string().contains("apr-zz"), "{unknown}");

    let run = fixture.open().await.run("run-1").await.unwrap().unwrap();
    let answers: Vec<&Answer> = run.answers().collect();
    assert_eq!(answers, [&accepted]);

    // Saved again still waiting on apr-a and on a new request: apr-a keeps its answer, apr-b
    // (no longer waited on) is forgotten.
    journal.save_run(&paused("run-1", &["apr-a", "apr-new"])).await.unwrap();
    let run = journal.run("run-1").await.unwrap().unwrap();
    let answered: Vec<(&str, bool)> =
        run.waiting.iter().map(|w| (w.request.id.as_str(), w.answer.is_some())).collect();
    assert_eq!(answered, [("apr-a", true), ("apr-new", false)]);
    let gone = journal.answer_run(&Answer::accept("apr-b", json!(null))).await.unwrap_err();
    assert_eq!(gone.kind(), JournalErrorKind::UnknownRequest);
}

async fn one_resume_claims_a_run_at_a_time(backend: Backend) {
    let fixture = Fixture::new(backend).await;
    let first = fixture.open().await;
    let second = fixture.open().await;
    first.save_run(&paused("run-1", &["apr-a"])).await.unwrap();

    let claimed = first.claim_run("run-1").await.unwrap();
    assert!(claimed.claimed_until.is_some());
    let busy = second.claim_run("run-1").await.unwrap_err();
    assert_eq!(busy.kind(), JournalErrorKind::AlreadyResumed);
    assert!(busy.to_string().contains("run-1"), "{busy}");

    // Saving (the resume paused again) lets go of the claim; so does a release.
    first.save_run(&paused("run-1", &["apr-a"])).await.unwrap();
    second.claim_run("run-1").await.unwrap();
    assert!(second.release_run("run-1").await.unwrap());
    first.claim_run("run-1").await.unwrap();

    let unknown = first.claim_run("run-9").await.unwrap_err();
    assert_eq!(unknown.kind(), JournalErrorKind::UnknownRun);
    assert!(!first.release_run("run-9").await.unwrap());

    // A claim of a resume that died lapses.
    let short =
        fixture.open_with(common::options(backend).run_claim(Duration::from_millis(50))).await;
    short.save_run(&paused("run-2", &["apr-b"])).await.unwrap();
    short.claim_run("run-2").await.unwrap();
    tokio::time::sleep(Duration::from_millis(120)).await;
    second.claim_run("run-2").await.unwrap();
}

async fn a_lapsed_run_request_refuses_its_answer(backend: Backend) {
    let fixture = Fixture::new(backend).await;
    let journal = fixture.open().await;
    let mut lapsed = request("apr-old", "allow?");
    lapsed.expires_at = Some("2001-01-01T00:00:00Z".to_owned());
    let run = PausedRun::new("run-1", "anthropic:m", json!({})).wait("c1", "deploy", lapsed);
    journal.save_run(&run).await.unwrap();
    let error = journal.answer_run(&Answer::accept("apr-old", json!(null))).await.unwrap_err();
    assert_eq!(error.kind(), JournalErrorKind::Expired);
}

async fn a_removed_run_is_gone_with_its_requests(backend: Backend) {
    let fixture = Fixture::new(backend).await;
    let journal = fixture.open().await;
    journal.save_run(&paused("run-1", &["apr-a"])).await.unwrap();
    assert!(journal.remove_run("run-1").await.unwrap());
    assert!(!journal.remove_run("run-1").await.unwrap());
    assert!(journal.run("run-1").await.unwrap().is_none());
    assert!(journal.runs().await.unwrap().is_empty());
    let error = journal.answer_run(&Answer::accept("apr-a", json!(null))).await.unwrap_err();
    assert_eq!(error.kind(), JournalErrorKind::UnknownRequest);
}

#[tokio::test]
async fn a_journal_of_schema_1_gains_the_runs_tables_on_open() {
    use sqlx::Connection;
    let fixture = Fixture::new(Backend::Sqlite).await;
    let journal = fixture.open().await;
    journal.save_run(&paused("before", &[])).await.unwrap();
    journal.close().await;
    // Turn the file back into a journal of the first schema, as an older version left it.
    let path = fixture.dir().join("journal.db");
    let mut conn =
        sqlx::SqliteConnection::connect(&format!("sqlite:{}", path.display())).await.unwrap();
    for sql in [
        "DROP TABLE journal_run_requests",
        "DROP TABLE journal_runs",
        "DELETE FROM _sqlx_migrations WHERE version = 2",
    ] {
        sqlx::query(sql).execute(&mut conn).await.unwrap();
    }
    conn.close().await.unwrap();

    let journal = fixture.open().await;
    assert!(journal.runs().await.unwrap().is_empty());
    journal.save_run(&paused("after", &["apr-a"])).await.unwrap();
    assert_eq!(journal.run("after").await.unwrap().unwrap().waiting.len(), 1);
}

#[tokio::test]
async fn regression_run_claim_duration_max_does_not_panic() {
    let fixture = Fixture::new(Backend::Sqlite).await;
    let options = common::options(Backend::Sqlite).run_claim(Duration::MAX);
    let first = fixture.open_with(options).await;
    first.save_run(&paused("run-1", &["apr-a"])).await.unwrap();
    first.claim_run("run-1").await.unwrap();
    let busy = fixture.open().await.claim_run("run-1").await.unwrap_err();
    assert_eq!(busy.kind(), JournalErrorKind::AlreadyResumed);
    assert!(busy.to_string().contains("claimed until"), "{busy}");
}

#[tokio::test]
async fn regression_claim_time_past_year_9999_does_not_panic() {
    use sqlx::Connection;
    let fixture = Fixture::new(Backend::Sqlite).await;
    let journal = fixture.open().await;
    journal.save_run(&paused("run-1", &["apr-a"])).await.unwrap();
    // A row another version, or a hand, left with a claim far past what humantime writes.
    let path = fixture.dir().join("journal.db");
    let mut conn =
        sqlx::SqliteConnection::connect(&format!("sqlite:{}", path.display())).await.unwrap();
    sqlx::query("UPDATE journal_runs SET claimed_until = 9223372036854775807")
        .execute(&mut conn)
        .await
        .unwrap();
    conn.close().await.unwrap();
    let busy = journal.claim_run("run-1").await.unwrap_err();
    assert_eq!(busy.kind(), JournalErrorKind::AlreadyResumed);
    assert!(busy.to_string().contains("ms after the Unix epoch"), "{busy}");
}
