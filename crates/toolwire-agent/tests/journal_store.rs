//! A journal as the agent's run store: a run paused for approval in one process is
//! answered and resumed in another, and one resume holds it at a time.
#![cfg(feature = "journal")]

use std::sync::{Arc, Mutex};

use crate::common::{Scripted, balanced, weather};
use serde_json::json;
use toolwire::{Answer, Provider, Registry, Tool, ToolCall, ToolResult};
use toolwire_agent::{Agent, ErrorKind, RunStore, StopReason};
use toolwire_journal::Journal;

/// A registry whose `deploy` asks for approval, sealed with the journal's key.
fn deployer(journal: &Journal, runs: Arc<Mutex<u32>>) -> Registry {
    let deploy = Tool::define("deploy")
        .needs_approval(true)
        .execute_sync(move |args, _| {
            *runs.lock().expect("runs") += 1;
            ToolResult::ok(args.clone(), "deployed")
        })
        .build()
        .expect("deploy");
    Registry::builder()
        .register(deploy)
        .register_all(weather(None).tools().to_vec())
        .approval_key(journal.approval_key())
        .seal()
        .expect("registry")
}

/// A process of its own: a journal instance on the file, an agent over it.
async fn process(url: &str, turns: Vec<Vec<ToolCall>>, runs: &Arc<Mutex<u32>>) -> (Journal, Agent) {
    let journal = Journal::open(url).await.expect("journal");
    let agent = Agent::builder(Scripted::new(turns), deployer(&journal, Arc::clone(runs)))
        .store(Arc::new(journal.clone()))
        .build();
    (journal, agent)
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_run_paused_in_the_journal_is_answered_and_resumed_by_another_process() {
    let dir = tempfile::tempdir().expect("dir");
    let url = format!("sqlite:{}", dir.path().join("journal.db").display());
    let runs = Arc::new(Mutex::new(0));
    let turn = vec![ToolCall::new("c1", "deploy", json!({"env": "prod"}))];
    let (first, agent) = process(&url, vec![turn], &runs).await;
    let outcome = agent.run("ship it").await;
    assert!(matches!(outcome.stop, StopReason::Pending), "{:?}", outcome.stop);
    let run_id = outcome.state.run_id.clone();

    let paused = first.run(&run_id).await.expect("read").expect("the run is in the journal");
    assert_eq!(paused.label, "openai:scripted");
    assert_eq!(paused.waiting.len(), 1);
    assert_eq!(
        (paused.waiting[0].call_id.as_str(), paused.waiting[0].tool.as_str()),
        ("c1", "deploy")
    );
    let request_id = paused.waiting[0].request.id.clone();
    first.close().await;
    drop(agent);

    // Someone answers through the journal, in a process of their own.
    let answering = Journal::open(&url).await.expect("journal");
    assert_eq!(
        answering.answer_run(&Answer::accept(request_id, json!(null))).await.expect("answer"),
        run_id
    );

    // A third process resumes the run with the recorded answer.
    let (second, agent) = process(&url, vec![], &runs).await;
    let holder = Journal::open(&url).await.expect("journal");
    holder.claim_run(&run_id).await.expect("claim");
    let busy = agent.resume_stored(&run_id, []).await.expect_err("held by another resume");
    assert_eq!(busy.kind(), ErrorKind::Store);
    assert!(busy.to_string().contains("being resumed elsewhere"), "{busy}");
    holder.release_run(&run_id).await.expect("release");

    let resumed = agent.resume_stored(&run_id, []).await.expect("resume");
    assert!(resumed.is_finished(), "{:?}", resumed.stop);
    assert_eq!(*runs.lock().expect("runs"), 1, "deployed once");
    assert_eq!(resumed.receipts[0].result.text(), Some("deployed"));
    assert!(balanced(Provider::OpenAi, &resumed.state.messages));
    assert!(
        second.run(&run_id).await.expect("read").is_none(),
        "a finished run leaves the journal"
    );
    assert!(agent.resume_stored(&run_id, []).await.is_err(), "and cannot be resumed twice");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_resume_that_fails_lets_go_of_its_claim() {
    let dir = tempfile::tempdir().expect("dir");
    let url = format!("sqlite:{}", dir.path().join("journal.db").display());
    let runs = Arc::new(Mutex::new(0));
    let turn = vec![ToolCall::new("c1", "deploy", json!({"env": "prod"}))];
    let (journal, agent) = process(&url, vec![turn], &runs).await;
    let outcome = agent.run("ship it").await;
    let run_id = outcome.state.run_id.clone();

    let stranger = Answer::accept("apr-not-ours", json!(null));
    let error = agent.resume_stored(&run_id, [stranger]).await.expect_err("no answer matches");
    assert_eq!(error.kind(), ErrorKind::Resume);
    let stored = journal.claim(&run_id).await.expect("claim").expect("still held");
    assert!(stored.state.is_pending());
    assert!(stored.answers.is_empty());
    assert_eq!(*runs.lock().expect("runs"), 0);
}
