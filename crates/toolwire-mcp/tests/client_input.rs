//! The client on MCP 2026-07-28: a server that answers a call with an `InputRequiredResult`
//! (here toolwire's own server, asking for an approval) is answered by the host's approval
//! flow, through a pending result, or at once by an elicitation handler.

use std::sync::atomic::Ordering;
use std::sync::{Arc, Mutex};

use serde_json::json;
use toolwire::{Answer, FailureKind, Registry};
use toolwire_mcp::client::{ClientOptions, ElicitationReply, HttpConfig, RemoteServer, ServerSpec};

use crate::common::approving_server;

/// The host's registry, with the remote tools imported.
async fn host(url: &str, options: ClientOptions) -> (RemoteServer, Registry) {
    let spec = ServerSpec::Http(HttpConfig::new(url));
    let remote = RemoteServer::connect("ops", &spec, options).await.expect("connects");
    let registry = Registry::builder().register_all(remote.import().tools).seal().expect("unique");
    (remote, registry)
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_2026_servers_question_is_a_pending_result_that_the_hosts_answer_completes() {
    let (url, runs) = approving_server().await;
    let (_remote, registry) = host(&url, ClientOptions::new()).await;
    let args = json!({"env": "prod"});
    let first = registry.invoke("ops__deploy", args.clone()).call_id("c1").await;
    let request = first.result.pending_request().expect("the server asked").clone();
    assert_eq!(request.kind, "input");
    assert!(request.prompt.contains("deploy"), "{request:?}");
    assert_eq!(runs.load(Ordering::SeqCst), 0);

    let answer = Answer::accept(request.id.clone(), json!({}));
    let done = registry.invoke("ops__deploy", args).call_id("c1").answer(answer).await;
    assert_eq!(done.result.text(), Some("deployed"), "{:?}", done.result);
    assert_eq!(runs.load(Ordering::SeqCst), 1);
}

/// Regression: an answer given in another host process (which never saw the server's state)
/// started the call over, and the server's same question came back as pending again, so a
/// question answered through a shared journal could never complete.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn regression_an_answer_from_another_host_process_answers_the_servers_question_asked_again() {
    let (url, runs) = approving_server().await;
    let key = toolwire::policy::ApprovalKey::from_bytes([7; 32]);
    let spec = ServerSpec::Http(HttpConfig::new(url.as_str()));
    let host = || async {
        let remote =
            RemoteServer::connect("ops", &spec, ClientOptions::new()).await.expect("connects");
        let tools = remote.import().tools;
        (remote, Registry::builder().approval_key(key).register_all(tools).seal().expect("unique"))
    };
    let (_asking, asking) = host().await;
    let args = json!({"env": "prod"});
    let first = asking.invoke("ops__deploy", args.clone()).call_id("c9").await;
    let request = first.result.pending_request().expect("the server asked").clone();

    let (_answering, answering) = host().await;
    let answer = Answer::accept(request.id.clone(), json!({}));
    let done = answering.invoke("ops__deploy", args.clone()).call_id("c9").answer(answer).await;
    assert_eq!(done.result.text(), Some("deployed"), "{:?}", done.result);
    assert_eq!(runs.load(Ordering::SeqCst), 1);

    // An answer made for another call is refused by the host before anything is sent.
    let foreign = Answer::accept(request.id, json!({}));
    let other =
        answering.invoke("ops__deploy", json!({"env": "dev"})).call_id("c9").answer(foreign).await;
    assert!(!other.result.is_success(), "{:?}", other.result);
    assert_eq!(runs.load(Ordering::SeqCst), 1);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_declined_question_fails_the_remote_call_and_runs_nothing() {
    let (url, runs) = approving_server().await;
    let (_remote, registry) = host(&url, ClientOptions::new()).await;
    let first = registry.invoke("ops__deploy", json!({"env": "prod"})).call_id("c2").await;
    let request = first.result.pending_request().expect("the server asked").clone();
    let answer = Answer::decline(request.id, "not today");
    let done =
        registry.invoke("ops__deploy", json!({"env": "prod"})).call_id("c2").answer(answer).await;
    assert_eq!(done.result.failure_kind(), Some(FailureKind::Handler), "{:?}", done.result);
    assert!(done.result.text().unwrap_or_default().contains("declined"), "{:?}", done.result);
    assert_eq!(runs.load(Ordering::SeqCst), 0);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_elicitation_handler_answers_a_2026_server_within_the_call() {
    let (url, runs) = approving_server().await;
    let asked = Arc::new(Mutex::new(Vec::new()));
    let record = Arc::clone(&asked);
    let options = ClientOptions::new().on_elicitation(move |request| {
        record.lock().expect("not poisoned").push(request.message.clone());
        async move { ElicitationReply::Accept(json!({})) }
    });
    let (_remote, registry) = host(&url, options).await;
    let done = registry.invoke("ops__deploy", json!({"env": "prod"})).await;
    assert_eq!(done.result.text(), Some("deployed"), "{:?}", done.result);
    assert_eq!(asked.lock().expect("not poisoned").len(), 1);
    assert_eq!(runs.load(Ordering::SeqCst), 1);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_client_pinned_to_2025_11_25_is_asked_through_elicitation_instead() {
    let (url, runs) = approving_server().await;
    let options = ClientOptions::new()
        .protocol_version("2025-11-25")
        .on_elicitation(|_| async { ElicitationReply::Accept(json!({})) });
    let (_remote, registry) = host(&url, options).await;
    let done = registry.invoke("ops__deploy", json!({"env": "prod"})).await;
    assert_eq!(done.result.text(), Some("deployed"), "{:?}", done.result);
    assert_eq!(runs.load(Ordering::SeqCst), 1);
}
