//! The client and the tasks extension of MCP 2026-07-28 (SEP-2663): an imported call that
//! toolwire's own server makes a task is followed with `tasks/get` to its result; its question
//! is a pending result whose answer goes back with `tasks/update`; and aborting the call sends
//! `tasks/cancel`, which stops the handler on the server.

use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::Duration;

use serde_json::{Value, json};
use toolwire::{
    AbortController, Answer, FailureKind, Registry, Request, TaskSupport, Tool, ToolContext,
    ToolResult,
};
use toolwire_mcp::client::{ClientOptions, HttpConfig, RemoteServer, ServerSpec};
use toolwire_mcp::server::HttpOptions;

use crate::common::serve;

/// How the server's handlers ended.
#[derive(Default)]
struct Ends {
    finished: AtomicUsize,
    stopped: AtomicUsize,
    answered: AtomicUsize,
}

/// Counts a handler dropped before it finished.
struct Guard(Arc<Ends>, bool);

impl Drop for Guard {
    fn drop(&mut self) {
        let counter = if self.1 { &self.0.finished } else { &self.0.stopped };
        counter.fetch_add(1, Ordering::SeqCst);
    }
}

/// `build {ms}` sleeps past the grace period and answers; `ask` asks to confirm first.
fn remote_tools(ends: &Arc<Ends>) -> Registry {
    let sleeping = Arc::clone(ends);
    let build = Tool::define("build")
        .output_schema(json!({"type": "object"}))
        .task_support(TaskSupport::Optional)
        .execute(move |args: Value, _ctx: ToolContext| {
            let ends = Arc::clone(&sleeping);
            async move {
                let mut guard = Guard(ends, false);
                let ms = args.get("ms").and_then(Value::as_u64).unwrap_or(0);
                tokio::time::sleep(Duration::from_millis(ms)).await;
                guard.1 = true;
                ToolResult::ok(args, "built")
            }
        })
        .build()
        .expect("valid");
    let asking = Arc::clone(ends);
    let ask = Tool::define("ask")
        .asks_for_input(true)
        .task_support(TaskSupport::Optional)
        .execute(move |_: Value, ctx: ToolContext| {
            let ends = Arc::clone(&asking);
            async move {
                if let Some(answer) = ctx.answer() {
                    ends.answered.fetch_add(1, Ordering::SeqCst);
                    return ToolResult::ok(answer.data.clone(), "confirmed");
                }
                tokio::time::sleep(Duration::from_millis(250)).await;
                ToolResult::pending(Request::new("confirm", "Go ahead?"))
            }
        })
        .build()
        .expect("valid");
    Registry::builder().register(build).register(ask).seal().expect("unique")
}

/// The host's registry, with the remote server's tools imported as `ops__*`.
async fn host(ends: &Arc<Ends>) -> (RemoteServer, Registry) {
    let addr = serve(remote_tools(ends), HttpOptions::default()).await;
    let spec = ServerSpec::Http(HttpConfig::new(format!("http://{addr}/mcp")));
    let remote = RemoteServer::connect("ops", &spec, ClientOptions::new()).await.expect("connects");
    let registry = Registry::builder().register_all(remote.import().tools).seal().expect("unique");
    (remote, registry)
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_imported_call_that_becomes_a_task_is_followed_to_its_result() {
    let ends = Arc::new(Ends::default());
    let (_remote, registry) = host(&ends).await;
    let done = registry.invoke("ops__build", json!({"ms": 400})).await;
    // `build` declares an output schema: its structured result is the JSON, beside its text.
    assert_eq!(done.result.text(), Some("built"), "{:?}", done.result);
    assert_eq!(done.result.json()["ms"], 400, "{:?}", done.result);
    assert_eq!(ends.finished.load(Ordering::SeqCst), 1);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn aborting_an_imported_task_call_cancels_the_task_and_stops_the_remote_handler() {
    let ends = Arc::new(Ends::default());
    let (_remote, registry) = host(&ends).await;
    let controller = AbortController::new();
    let call = registry.invoke("ops__build", json!({"ms": 60_000})).signal(controller.signal());
    let aborter = controller.clone();
    tokio::spawn(async move {
        tokio::time::sleep(Duration::from_millis(500)).await;
        aborter.abort_with("the user pressed stop");
    });
    let done = call.await;
    assert_eq!(done.result.failure_kind(), Some(FailureKind::Aborted), "{:?}", done.result);
    let deadline = std::time::Instant::now() + Duration::from_secs(5);
    while ends.stopped.load(Ordering::SeqCst) == 0 {
        assert!(std::time::Instant::now() < deadline, "the remote handler kept running");
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
    assert_eq!(ends.finished.load(Ordering::SeqCst), 0);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_tasks_question_is_a_pending_result_whose_answer_resumes_the_task() {
    let ends = Arc::new(Ends::default());
    let (_remote, registry) = host(&ends).await;
    let first = registry.invoke("ops__ask", json!({})).call_id("t1").await;
    let request = first.result.pending_request().expect("the task asked").clone();
    assert_eq!(request.prompt, "Go ahead?", "{request:?}");
    assert_eq!(ends.answered.load(Ordering::SeqCst), 0);

    let answer = Answer::accept(request.id.clone(), json!({}));
    let done = registry.invoke("ops__ask", json!({})).call_id("t1").answer(answer).await;
    assert_eq!(done.result.text(), Some("confirmed"), "{:?}", done.result);
    assert_eq!(ends.answered.load(Ordering::SeqCst), 1);
}
