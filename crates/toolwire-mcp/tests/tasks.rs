//! Long-running calls as tasks (MCP 2026-07-28, SEP-2663), tried as an attacker would: a
//! client that controls every byte it sends, but not another client's credentials. A task is
//! seen and steered only by the client that started it; a forged id is unknown; an answer
//! resumes a task once; a cancelled task stops its handler; and a task whose server stopped
//! is taken over by another sharing its store, run again only when that is safe.

use std::net::SocketAddr;
use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::{Duration, Instant};

use serde_json::{Value, json};
use tokio::net::TcpListener;
use toolwire::policy::ApprovalKey;
use toolwire::tasks::MemoryTaskStore;
use toolwire::{Registry, Request, TaskSupport, Tool, ToolContext, ToolResult};
use toolwire_mcp::server::{HttpOptions, McpServer, serve_on};

use crate::common::{Reply, Send, send};

const V2026: &str = "2026-07-28";
const TASKS: &str = "io.modelcontextprotocol/tasks";

/// What each tool's handler did.
#[derive(Default)]
struct Runs {
    started: AtomicUsize,
    finished: AtomicUsize,
    answered: AtomicUsize,
    /// Handlers dropped before they finished: stopped.
    stopped: AtomicUsize,
}

/// Counts a handler stopped mid-way, when it is dropped unfinished.
struct StopGuard(Arc<Runs>, bool);

impl Drop for StopGuard {
    fn drop(&mut self) {
        if !self.1 {
            self.0.stopped.fetch_add(1, Ordering::SeqCst);
        }
    }
}

/// `work {ms}`: sleeps, then finishes (optional task); `job`: the same, but always a task,
/// idempotent when `idempotent`; `ask`: works a moment, then asks to confirm.
fn registry(runs: &Arc<Runs>, idempotent: bool) -> Registry {
    let sleeper = |name: &str, support: TaskSupport| {
        let runs = Arc::clone(runs);
        Tool::define(name)
            .task_support(support)
            .idempotent(idempotent)
            .execute(move |args: Value, _ctx: ToolContext| {
                let runs = Arc::clone(&runs);
                async move {
                    runs.started.fetch_add(1, Ordering::SeqCst);
                    let mut guard = StopGuard(Arc::clone(&runs), false);
                    let ms = args.get("ms").and_then(Value::as_u64).unwrap_or(0);
                    tokio::time::sleep(Duration::from_millis(ms)).await;
                    guard.1 = true;
                    runs.finished.fetch_add(1, Ordering::SeqCst);
                    ToolResult::ok(args, format!("slept {ms} ms"))
                }
            })
            .build()
            .expect("valid")
    };
    let asking = Arc::clone(runs);
    let ask = Tool::define("ask")
        .asks_for_input(true)
        .task_support(TaskSupport::Optional)
        .execute(move |_: Value, ctx: ToolContext| {
            let runs = Arc::clone(&asking);
            async move {
                if let Some(answer) = ctx.answer() {
                    runs.answered.fetch_add(1, Ordering::SeqCst);
                    return ToolResult::ok(answer.data.clone(), "confirmed");
                }
                tokio::time::sleep(Duration::from_millis(150)).await;
                ToolResult::pending(Request::new("confirm", "Go ahead?"))
            }
        })
        .build()
        .expect("valid");
    Registry::builder()
        // Servers that share a task store share the key too: a question one asked is
        // answered on another.
        .approval_key(ApprovalKey::from_bytes([7; 32]))
        .register(sleeper("work", TaskSupport::Optional))
        .register(sleeper("job", TaskSupport::Required))
        .register(ask)
        .seal()
        .expect("unique")
}

async fn serve(server: McpServer) -> SocketAddr {
    let listener = TcpListener::bind("127.0.0.1:0").await.expect("a free port");
    let addr = listener.local_addr().expect("bound");
    tokio::spawn(serve_on(listener, server, HttpOptions::default()));
    addr
}

fn server(runs: &Arc<Runs>) -> McpServer {
    McpServer::new(registry(runs, false)).task_grace(Duration::from_millis(50))
}

/// A client on 2026-07-28 that follows tasks (unless told not to).
struct Client {
    addr: SocketAddr,
    tasks: bool,
    authorization: Option<String>,
}

impl Client {
    fn new(addr: SocketAddr) -> Self {
        Self { addr, tasks: true, authorization: None }
    }

    fn without_tasks(mut self) -> Self {
        self.tasks = false;
        self
    }

    fn bearer(mut self, token: &str) -> Self {
        self.authorization = Some(format!("Bearer {token}"));
        self
    }

    async fn request(&self, method: &str, name: &str, mut params: Value) -> Reply {
        let mut capabilities = json!({"elicitation": {}});
        if self.tasks {
            capabilities["extensions"] = json!({TASKS: {}});
        }
        params["_meta"] = json!({
            "io.modelcontextprotocol/protocolVersion": V2026,
            "io.modelcontextprotocol/clientCapabilities": capabilities,
        });
        let body =
            json!({"jsonrpc": "2.0", "id": 7, "method": method, "params": params}).to_string();
        let mut headers = vec![
            ("MCP-Protocol-Version", V2026.to_owned()),
            ("Mcp-Method", method.to_owned()),
            ("Mcp-Name", name.to_owned()),
        ];
        if let Some(authorization) = &self.authorization {
            headers.push(("Authorization", authorization.clone()));
        }
        send(self.addr, Send { headers, ..Send::default() }, body.as_bytes()).await
    }

    async fn call(&self, tool: &str, arguments: Value) -> Value {
        let reply = self.request("tools/call", tool, json!({"name": tool, "arguments": arguments}));
        reply.await.json()
    }

    /// Calls `tool`, which must become a task: its id.
    async fn task(&self, tool: &str, arguments: Value) -> String {
        let body = self.call(tool, arguments).await;
        let result = &body["result"];
        assert_eq!(result["resultType"], "task", "{body}");
        assert!(result.get("requestState").is_none(), "{body}");
        result["taskId"].as_str().expect("a task id").to_owned()
    }

    async fn get(&self, id: &str) -> Value {
        self.request("tasks/get", id, json!({"taskId": id})).await.json()
    }

    async fn update(&self, id: &str, responses: Value) -> Value {
        let params = json!({"taskId": id, "inputResponses": responses});
        self.request("tasks/update", id, params).await.json()
    }

    async fn cancel(&self, id: &str) -> Value {
        self.request("tasks/cancel", id, json!({"taskId": id})).await.json()
    }

    /// Polls task `id` until its status is `status` or it ends; the last `tasks/get` result.
    async fn until(&self, id: &str, status: &str) -> Value {
        let deadline = Instant::now() + Duration::from_secs(10);
        loop {
            let body = self.get(id).await;
            let result = body["result"].clone();
            let now = result["status"].as_str().unwrap_or_default();
            if now == status || ["completed", "failed", "cancelled"].contains(&now) {
                return result;
            }
            assert!(Instant::now() < deadline, "task {id} stayed {now}: {body}");
            tokio::time::sleep(Duration::from_millis(20)).await;
        }
    }
}

fn error_code(body: &Value) -> i64 {
    assert!(body.get("result").is_none(), "expected an error, got {body}");
    body["error"]["code"].as_i64().unwrap_or_default()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_call_past_the_grace_period_becomes_a_task_that_completes() {
    let runs = Arc::new(Runs::default());
    let client = Client::new(serve(server(&runs)).await);
    let id = client.task("work", json!({"ms": 300})).await;
    // The task is stored before the client hears of it.
    let working = client.get(&id).await;
    assert_eq!(working["result"]["status"], "working", "{working}");
    assert_eq!(working["result"]["resultType"], "complete", "{working}");

    let done = client.until(&id, "completed").await;
    assert_eq!(done["status"], "completed", "{done}");
    assert_eq!(done["result"]["content"][0]["text"], "slept 300 ms", "{done}");
    assert_eq!(done["result"]["isError"], false, "{done}");
    assert!(done["ttlMs"].as_u64().is_some_and(|ms| ms > 0), "{done}");
    assert_eq!(runs.finished.load(Ordering::SeqCst), 1);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_quick_call_and_a_client_without_tasks_get_a_plain_result() {
    let runs = Arc::new(Runs::default());
    let addr = serve(server(&runs)).await;
    let quick = Client::new(addr).call("work", json!({"ms": 0})).await;
    assert_eq!(quick["result"]["resultType"], "complete", "{quick}");
    assert_eq!(quick["result"]["content"][0]["text"], "slept 0 ms", "{quick}");

    let plain = Client::new(addr).without_tasks().call("work", json!({"ms": 200})).await;
    assert_eq!(plain["result"]["resultType"], "complete", "{plain}");
    assert_eq!(plain["result"]["content"][0]["text"], "slept 200 ms", "{plain}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_tool_that_requires_a_task_refuses_a_client_without_tasks_and_runs_nothing() {
    let runs = Arc::new(Runs::default());
    let addr = serve(server(&runs)).await;
    let refused = Client::new(addr).without_tasks().call("job", json!({"ms": 0})).await;
    assert_eq!(error_code(&refused), -32021, "{refused}");
    assert!(refused["error"]["data"]["requiredCapabilities"]["extensions"][TASKS].is_object());
    assert_eq!(runs.started.load(Ordering::SeqCst), 0, "nothing ran");

    // Such a tool's quick call is a task too, already ended.
    let client = Client::new(addr);
    let id = client.task("job", json!({"ms": 0})).await;
    assert_eq!(client.get(&id).await["result"]["status"], "completed");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn tasks_methods_without_the_extension_are_refused() {
    let runs = Arc::new(Runs::default());
    let client = Client::new(serve(server(&runs)).await);
    let id = client.task("work", json!({"ms": 300})).await;
    let stranger = Client::new(client.addr).without_tasks();
    assert_eq!(error_code(&stranger.get(&id).await), -32021);
    assert_eq!(error_code(&stranger.cancel(&id).await), -32021);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_forged_or_foreign_task_id_is_unknown_and_another_client_cannot_steer_a_task() {
    let runs = Arc::new(Runs::default());
    let addr = serve(server(&runs)).await;
    let owner = Client::new(addr).bearer("alice-token");
    let id = owner.task("work", json!({"ms": 300})).await;

    for forged in ["twt-00000000000000000000000000000000", "", &"x".repeat(10_000), "../etc"] {
        let body = owner.get(forged).await;
        assert_eq!(error_code(&body), -32602, "{forged:.40}: {body}");
    }
    // Another credential, and no credential at all, see no such task, and cannot cancel it.
    for intruder in [Client::new(addr).bearer("mallory-token"), Client::new(addr)] {
        let seen = intruder.get(&id).await;
        assert_eq!(error_code(&seen), -32602, "{seen}");
        assert!(seen["error"]["message"].as_str().is_some_and(|m| m.contains("unknown task")));
        assert_eq!(error_code(&intruder.cancel(&id).await), -32602);
        let answer = json!({"confirm": {"action": "accept", "content": {}}});
        assert_eq!(error_code(&intruder.update(&id, answer).await), -32602);
    }
    let done = owner.until(&id, "completed").await;
    assert_eq!(done["status"], "completed", "the intruders changed nothing: {done}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn cancelling_a_task_stops_its_handler_and_cancelling_again_is_acknowledged() {
    let runs = Arc::new(Runs::default());
    let client = Client::new(serve(server(&runs)).await);
    let id = client.task("work", json!({"ms": 60_000})).await;
    let ack = client.cancel(&id).await;
    assert_eq!(ack["result"], json!({"resultType": "complete"}), "{ack}");
    let after = client.until(&id, "cancelled").await;
    assert_eq!(after["status"], "cancelled", "{after}");
    assert!(after.get("result").is_none(), "{after}");
    assert_eq!(client.cancel(&id).await["result"]["resultType"], "complete");
    tokio::time::sleep(Duration::from_millis(100)).await;
    assert_eq!(runs.finished.load(Ordering::SeqCst), 0);
    assert_eq!(runs.stopped.load(Ordering::SeqCst), 1, "the handler was stopped");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_answer_resumes_a_task_once_and_a_replayed_update_changes_nothing() {
    let runs = Arc::new(Runs::default());
    let client = Client::new(serve(server(&runs)).await);
    let id = client.task("ask", json!({})).await;
    let asked = client.until(&id, "input_required").await;
    assert_eq!(asked["status"], "input_required", "{asked}");
    assert_eq!(asked["inputRequests"]["confirm"]["method"], "elicitation/create", "{asked}");

    // A response that is not a result object is refused, and stores nothing.
    let malformed = client.update(&id, json!({"confirm": "yes"})).await;
    assert_eq!(error_code(&malformed), -32602, "{malformed}");
    // A key never asked is ignored.
    let stray = client.update(&id, json!({"other": {"action": "accept"}})).await;
    assert_eq!(stray["result"]["resultType"], "complete", "{stray}");
    assert_eq!(client.get(&id).await["result"]["status"], "input_required");

    let answer = json!({"confirm": {"action": "accept", "content": {"confirm": true}}});
    let ack = client.update(&id, answer.clone()).await;
    assert_eq!(ack["result"], json!({"resultType": "complete"}), "{ack}");
    let done = client.until(&id, "completed").await;
    assert_eq!(done["result"]["content"][0]["text"], "confirmed", "{done}");

    let replayed = client.update(&id, answer).await;
    assert_eq!(replayed["result"]["resultType"], "complete", "{replayed}");
    tokio::time::sleep(Duration::from_millis(100)).await;
    assert_eq!(runs.answered.load(Ordering::SeqCst), 1, "the answer resumed the call once");
}

/// Serves `registry` with `store` from a runtime of its own, on its own thread; dropping the
/// returned runtime stops that server the way a crash would: its calls stop mid-way, and
/// nothing renews their leases.
fn serve_apart(
    registry: Registry,
    store: Arc<MemoryTaskStore>,
    lease: Duration,
) -> (tokio::runtime::Runtime, SocketAddr) {
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(1)
        .enable_all()
        .build()
        .expect("a runtime");
    let server = McpServer::new(registry)
        .task_grace(Duration::from_millis(20))
        .task_lease(lease)
        .task_store(store);
    let addr = runtime.block_on(async {
        let listener = TcpListener::bind("127.0.0.1:0").await.expect("a free port");
        let addr = listener.local_addr().expect("bound");
        tokio::spawn(serve_on(listener, server, HttpOptions::default()));
        addr
    });
    (runtime, addr)
}

/// Starts `job {ms: 60000}` on a server that then stops; the task's id, and a second server
/// on the same store.
async fn orphaned(runs: &Arc<Runs>, idempotent: bool) -> (String, Client) {
    let store = Arc::new(MemoryTaskStore::new());
    let lease = Duration::from_millis(150);
    let (first, first_addr) = tokio::task::block_in_place(|| {
        serve_apart(registry(runs, idempotent), Arc::clone(&store), lease)
    });
    let id = Client::new(first_addr).task("job", json!({"ms": 60_000})).await;
    tokio::task::block_in_place(|| first.shutdown_timeout(Duration::from_secs(5)));
    let second = McpServer::new(registry(runs, idempotent))
        .task_grace(Duration::from_millis(20))
        .task_lease(lease)
        .task_store(store);
    let client = Client::new(serve(second).await);
    // While the stopped server's lease holds, the task is still its.
    assert_eq!(client.get(&id).await["result"]["status"], "working");
    tokio::time::sleep(lease * 2).await;
    (id, client)
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_task_whose_server_stopped_fails_as_outcome_unknown_when_its_tool_is_not_idempotent() {
    let runs = Arc::new(Runs::default());
    let (id, client) = orphaned(&runs, false).await;
    let taken = client.get(&id).await;
    assert_eq!(taken["result"]["status"], "failed", "{taken}");
    let message = taken["result"]["error"]["message"].as_str().unwrap_or_default();
    assert!(message.contains("whether it took effect is unknown"), "{message}");
    assert_eq!(runs.started.load(Ordering::SeqCst), 1, "not run again");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_task_whose_server_stopped_runs_again_when_its_tool_is_idempotent() {
    let runs = Arc::new(Runs::default());
    let (id, client) = orphaned(&runs, true).await;
    let taken = client.get(&id).await;
    assert_eq!(taken["result"]["status"], "working", "{taken}");
    assert_eq!(runs.started.load(Ordering::SeqCst), 2, "run again by the second server");
    // And it is the second server's now: cancelling it stops the new run.
    assert_eq!(client.cancel(&id).await["result"]["resultType"], "complete");
    assert_eq!(client.until(&id, "cancelled").await["status"], "cancelled");
    tokio::time::sleep(Duration::from_millis(100)).await;
    // One run stopped with the first server, the other by the cancellation.
    assert_eq!(runs.stopped.load(Ordering::SeqCst), 2, "the new run was stopped");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn two_updates_racing_with_the_answer_resume_the_call_once() {
    let runs = Arc::new(Runs::default());
    let client = Client::new(serve(server(&runs)).await);
    let id = client.task("ask", json!({})).await;
    client.until(&id, "input_required").await;
    let answer = json!({"confirm": {"action": "accept", "content": {}}});
    let (a, b) = tokio::join!(client.update(&id, answer.clone()), client.update(&id, answer));
    assert_eq!(a["result"]["resultType"], "complete", "{a}");
    assert_eq!(b["result"]["resultType"], "complete", "{b}");
    assert_eq!(client.until(&id, "completed").await["status"], "completed");
    tokio::time::sleep(Duration::from_millis(100)).await;
    assert_eq!(runs.answered.load(Ordering::SeqCst), 1);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_task_cancelled_through_another_server_sharing_the_store_stops_where_it_runs() {
    let runs = Arc::new(Runs::default());
    let store = Arc::new(MemoryTaskStore::new());
    let lease = Duration::from_millis(150);
    let on = |store: &Arc<MemoryTaskStore>| {
        server(&runs).task_lease(lease).task_store(Arc::clone(store) as Arc<_>)
    };
    let running = Client::new(serve(on(&store)).await);
    let other = Client::new(serve(on(&store)).await);
    let id = running.task("work", json!({"ms": 60_000})).await;
    assert_eq!(other.cancel(&id).await["result"]["resultType"], "complete");
    assert_eq!(running.get(&id).await["result"]["status"], "cancelled");
    // The server running it notices at its next lease renewal, a third of the lease.
    tokio::time::sleep(lease).await;
    assert_eq!(runs.started.load(Ordering::SeqCst), 1);
    assert_eq!(runs.stopped.load(Ordering::SeqCst), 1, "the handler was stopped");
    assert_eq!(running.get(&id).await["result"]["status"], "cancelled", "and stays cancelled");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_task_waiting_for_input_when_its_server_stops_still_waits_and_resumes_elsewhere() {
    let runs = Arc::new(Runs::default());
    let store = Arc::new(MemoryTaskStore::new());
    let lease = Duration::from_millis(150);
    let (first, first_addr) = tokio::task::block_in_place(|| {
        serve_apart(registry(&runs, false), Arc::clone(&store), lease)
    });
    let starter = Client::new(first_addr);
    let id = starter.task("ask", json!({})).await;
    assert_eq!(starter.until(&id, "input_required").await["status"], "input_required");
    tokio::task::block_in_place(|| first.shutdown_timeout(Duration::from_secs(5)));

    let second = McpServer::new(registry(&runs, false)).task_lease(lease).task_store(store);
    let client = Client::new(serve(second).await);
    tokio::time::sleep(lease * 2).await;
    let waiting = client.get(&id).await;
    assert_eq!(waiting["result"]["status"], "input_required", "nothing runs it: {waiting}");
    assert!(waiting["result"]["inputRequests"]["confirm"].is_object(), "{waiting}");
    let answer = json!({"confirm": {"action": "accept", "content": {}}});
    assert_eq!(client.update(&id, answer).await["result"]["resultType"], "complete");
    let done = client.until(&id, "completed").await;
    assert_eq!(done["result"]["content"][0]["text"], "confirmed", "{done}");
    assert_eq!(runs.answered.load(Ordering::SeqCst), 1);
}

/// A tool whose result carries an image and a resource link, after a wait long enough to
/// become a task.
fn picturing() -> Registry {
    let tool = Tool::define("picture")
        .task_support(TaskSupport::Optional)
        .execute(|_args: Value, _ctx: ToolContext| async {
            tokio::time::sleep(Duration::from_millis(200)).await;
            let png = b"\x89PNG\r\n\x1a\n-a-picture".to_vec();
            let annotations = json!({"annotations": {"audience": ["user"], "priority": 0.25}});
            let image = toolwire::media::Part::image("image/png", png)
                .with_mcp_extra(annotations.as_object().cloned().unwrap_or_default());
            let link = toolwire::media::Part::link("https://example.com/a.csv", "a.csv");
            ToolResult::ok(Value::Null, "drawn").with_parts(vec![image, link])
        })
        .build()
        .expect("valid");
    Registry::builder().register(tool).seal().expect("registry")
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_tasks_result_carries_its_parts_as_content_blocks() {
    let server = McpServer::new(picturing()).task_grace(Duration::from_millis(50));
    let client = Client::new(serve(server).await);
    let id = client.task("picture", json!({})).await;
    let done = client.until(&id, "completed").await;
    let content = &done["result"]["content"];
    assert_eq!(content[0], json!({"type": "text", "text": "drawn"}), "{done}");
    assert_eq!(
        content[1],
        json!({"type": "image", "mimeType": "image/png", "data": "iVBORw0KGgotYS1waWN0dXJl",
            "annotations": {"audience": ["user"], "priority": 0.25}}),
        "{done}"
    );
    assert_eq!(
        content[2],
        json!({"type": "resource_link", "uri": "https://example.com/a.csv", "name": "a.csv"}),
        "{done}"
    );
}
