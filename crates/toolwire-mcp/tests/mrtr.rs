//! MCP 2026-07-28 calls that wait for input (SEP-2322), tried as an attacker would: a client
//! that controls every byte it sends, but not the server's key. A `tools/call` that needs an
//! approval answers with an `InputRequiredResult`; only the client's retry with its sealed
//! `requestState`, unchanged, for the same tool, arguments and credentials, within its time to
//! live, and only once, runs the tool.

use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::Duration;

use base64::Engine;
use base64::engine::general_purpose::URL_SAFE_NO_PAD;
use serde_json::{Value, json};
use tokio::net::TcpListener;
use toolwire::policy::{ApprovalKey, MemoryApprovalStore};
use toolwire::{Registry, RegistryBuilder, Tool, ToolContext, ToolResult};
use toolwire_mcp::server::{HttpOptions, INPUT_REQUESTS_KIND, McpServer, serve_on};

use crate::common::{Reply, Send, send};

const V2026: &str = "2026-07-28";

/// How many times each tool's handler ran.
#[derive(Default)]
struct Runs {
    deploy: AtomicUsize,
    restart: AtomicUsize,
    ask: AtomicUsize,
}

fn tools(runs: &Arc<Runs>) -> RegistryBuilder {
    let counted = |name: &'static str, count: fn(&Runs) -> &AtomicUsize| {
        let runs = Arc::clone(runs);
        Tool::define(name)
            .needs_approval(true)
            .execute_sync(move |args: Value, _| {
                count(&runs).fetch_add(1, Ordering::SeqCst);
                ToolResult::ok(args, "deployed")
            })
            .build()
            .expect("valid")
    };
    let runs_ask = Arc::clone(runs);
    // A handler that asks its own question, in MCP's words: sampling and an elicitation.
    let ask = Tool::define("ask")
        .output_schema(json!({"type": "object"}))
        .asks_for_input(true)
        .execute_sync(move |_: Value, ctx: ToolContext| match ctx.answer() {
            Some(answer) => {
                runs_ask.ask.fetch_add(1, Ordering::SeqCst);
                ToolResult::ok(answer.data.clone(), "answered")
            }
            None => ToolResult::pending(
                toolwire::Request::new(INPUT_REQUESTS_KIND, "two questions").data(json!({
                    "pick": {"method": "elicitation/create", "params": {
                        "message": "Pick one",
                        "requestedSchema": {"type": "object", "properties": {"n": {"type": "integer"}}}
                    }},
                    "think": {"method": "sampling/createMessage", "params": {
                        "messages": [{"role": "user", "content": {"type": "text", "text": "hi"}}],
                        "maxTokens": 5
                    }}
                })),
            ),
        })
        .build()
        .expect("valid");
    Registry::builder()
        .register(counted("deploy", |r| &r.deploy))
        .register(counted("restart", |r| &r.restart))
        .register(ask)
}

/// Serves `server` on a free port.
async fn serve(server: McpServer) -> std::net::SocketAddr {
    let listener = TcpListener::bind("127.0.0.1:0").await.expect("a free port");
    let addr = listener.local_addr().expect("bound");
    tokio::spawn(serve_on(listener, server, HttpOptions::default()));
    addr
}

async fn server(runs: &Arc<Runs>) -> std::net::SocketAddr {
    serve(McpServer::new(tools(runs).seal().expect("unique"))).await
}

/// A client on 2026-07-28.
struct Client {
    addr: std::net::SocketAddr,
    capabilities: Value,
    authorization: Option<String>,
}

impl Client {
    fn new(addr: std::net::SocketAddr) -> Self {
        Self { addr, capabilities: json!({"elicitation": {}}), authorization: None }
    }

    fn bearer(mut self, token: &str) -> Self {
        self.authorization = Some(format!("Bearer {token}"));
        self
    }

    /// A `tools/call` of `tool` with `arguments`, and the retry's fields when there are any.
    async fn call(&self, tool: &str, arguments: Value, retry: Option<(&str, Value)>) -> Reply {
        let mut params = json!({
            "name": tool,
            "arguments": arguments,
            "_meta": {
                "io.modelcontextprotocol/protocolVersion": V2026,
                "io.modelcontextprotocol/clientCapabilities": self.capabilities,
            }
        });
        if let Some((state, responses)) = retry {
            params["requestState"] = json!(state);
            params["inputResponses"] = responses;
        }
        let body = json!({"jsonrpc": "2.0", "id": 1, "method": "tools/call", "params": params})
            .to_string();
        let mut headers = vec![
            ("MCP-Protocol-Version", V2026.to_owned()),
            ("Mcp-Method", "tools/call".to_owned()),
            ("Mcp-Name", tool.to_owned()),
        ];
        if let Some(authorization) = &self.authorization {
            headers.push(("Authorization", authorization.clone()));
        }
        send(self.addr, Send { headers, ..Send::default() }, body.as_bytes()).await
    }

    /// The first round of `deploy {env}`: its `requestState`.
    async fn parked(&self, tool: &str, env: &str) -> String {
        let reply = self.call(tool, json!({"env": env}), None).await;
        let result = &reply.json()["result"];
        assert_eq!(result["resultType"], "input_required", "{reply:?}");
        let state = result["requestState"].as_str().expect("a requestState").to_owned();
        assert!(state.starts_with("tws1."), "{state}");
        state
    }
}

fn accept() -> Value {
    json!({"approval": {"action": "accept", "content": {}}})
}

/// The JSON-RPC error of a reply, which must have one.
fn error_of(reply: &Reply) -> Value {
    let body = reply.json();
    assert!(body.get("result").is_none(), "expected an error, got {body}");
    body["error"].clone()
}

fn assert_refused(reply: &Reply, says: &str) {
    let error = error_of(reply);
    assert_eq!(error["code"], -32602, "{error}");
    let message = error["message"].as_str().unwrap_or_default();
    assert!(message.contains(says), "{message:?} should say {says:?}");
}

fn text_of(reply: &Reply) -> String {
    let body = reply.json();
    body["result"]["content"][0]["text"].as_str().unwrap_or_default().to_owned()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_approval_completes_in_two_rounds_and_its_state_works_once() {
    let runs = Arc::new(Runs::default());
    let client = Client::new(server(&runs).await);
    let first = client.call("deploy", json!({"env": "prod"}), None).await;
    let result = &first.json()["result"];
    let asked = &result["inputRequests"]["approval"];
    assert_eq!(asked["method"], "elicitation/create", "{result}");
    assert_eq!(asked["params"]["mode"], "form", "{result}");
    let state = result["requestState"].as_str().expect("a state");
    assert_eq!(runs.deploy.load(Ordering::SeqCst), 0, "nothing runs before the approval");

    let second = client.call("deploy", json!({"env": "prod"}), Some((state, accept()))).await;
    assert_eq!(second.json()["result"]["resultType"], "complete", "{second:?}");
    assert_eq!(text_of(&second), "deployed");
    assert_eq!(runs.deploy.load(Ordering::SeqCst), 1);

    let replayed = client.call("deploy", json!({"env": "prod"}), Some((state, accept()))).await;
    assert_refused(&replayed, "already used");
    assert_eq!(runs.deploy.load(Ordering::SeqCst), 1, "a replayed state runs nothing");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_tampered_request_state_is_refused_and_nothing_runs() {
    let runs = Arc::new(Runs::default());
    let client = Client::new(server(&runs).await);
    let state = client.parked("deploy", "prod").await;
    let (payload, tag) = state["tws1.".len()..].split_once('.').expect("payload.tag");

    // The attacker rewrites what the state says, and keeps the tag.
    let mut contents: Value =
        serde_json::from_slice(&URL_SAFE_NO_PAD.decode(payload).expect("base64url"))
            .expect("JSON inside");
    contents["e"] = json!(u64::MAX);
    let rewritten =
        format!("tws1.{}.{tag}", URL_SAFE_NO_PAD.encode(contents.to_string().as_bytes()));
    let flipped_tag = format!("tws1.{payload}.{}", flip(tag));
    let forged = format!("tws1.{}.{}", payload, URL_SAFE_NO_PAD.encode([0u8; 32]));
    let huge = format!("tws1.{}.{tag}", "A".repeat(64 * 1024));
    for bad in [rewritten, flipped_tag, forged, huge, "tws1.".into(), "anything".into()] {
        let reply = client.call("deploy", json!({"env": "prod"}), Some((&bad, accept()))).await;
        assert_refused(&reply, "integrity check");
    }
    assert_eq!(runs.deploy.load(Ordering::SeqCst), 0);

    // The refusals spent nothing: the genuine state still completes the call.
    let genuine = client.call("deploy", json!({"env": "prod"}), Some((&state, accept()))).await;
    assert_eq!(text_of(&genuine), "deployed", "{genuine:?}");
}

fn flip(text: &str) -> String {
    let mut chars: Vec<char> = text.chars().collect();
    chars[0] = if chars[0] == 'A' { 'B' } else { 'A' };
    chars.into_iter().collect()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_request_state_answers_only_its_own_tool_and_arguments() {
    let runs = Arc::new(Runs::default());
    let client = Client::new(server(&runs).await);
    let state = client.parked("deploy", "staging").await;

    let other_args = client.call("deploy", json!({"env": "prod"}), Some((&state, accept()))).await;
    assert_refused(&other_args, "other arguments");
    let other_tool =
        client.call("restart", json!({"env": "staging"}), Some((&state, accept()))).await;
    assert_refused(&other_tool, "another tool");
    assert_eq!(runs.deploy.load(Ordering::SeqCst) + runs.restart.load(Ordering::SeqCst), 0);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_request_state_is_bound_to_the_bearer_token_that_asked() {
    let runs = Arc::new(Runs::default());
    let addr = server(&runs).await;
    let alice = Client::new(addr).bearer("alice-token");
    let state = alice.parked("deploy", "prod").await;

    for thief in [Client::new(addr).bearer("mallory-token"), Client::new(addr)] {
        let reply = thief.call("deploy", json!({"env": "prod"}), Some((&state, accept()))).await;
        assert_refused(&reply, "another client");
    }
    assert_eq!(runs.deploy.load(Ordering::SeqCst), 0);
    let reply = alice.call("deploy", json!({"env": "prod"}), Some((&state, accept()))).await;
    assert_eq!(text_of(&reply), "deployed", "{reply:?}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_expired_request_state_is_refused() {
    let runs = Arc::new(Runs::default());
    let registry = tools(&runs).seal().expect("unique");
    let addr = serve(McpServer::new(registry).request_state_ttl(Duration::from_millis(50))).await;
    let client = Client::new(addr);
    let state = client.parked("deploy", "prod").await;
    tokio::time::sleep(Duration::from_millis(120)).await;
    let reply = client.call("deploy", json!({"env": "prod"}), Some((&state, accept()))).await;
    assert_refused(&reply, "expired");
    assert_eq!(runs.deploy.load(Ordering::SeqCst), 0);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_request_state_sealed_by_a_server_with_another_key_is_refused() {
    let runs = Arc::new(Runs::default());
    let one = Client::new(server(&runs).await);
    let other = Client::new(server(&runs).await);
    let state = one.parked("deploy", "prod").await;
    let reply = other.call("deploy", json!({"env": "prod"}), Some((&state, accept()))).await;
    assert_refused(&reply, "integrity check");
    assert_eq!(runs.deploy.load(Ordering::SeqCst), 0);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn servers_that_share_a_key_and_a_store_accept_each_others_state_once() {
    let runs = Arc::new(Runs::default());
    let key = ApprovalKey::from_bytes([42; 32]);
    let store = Arc::new(MemoryApprovalStore::new());
    let mut addrs = Vec::new();
    for _ in 0..2 {
        let registry = tools(&runs)
            .approval_key(key)
            .approval_store_shared(store.clone())
            .seal()
            .expect("unique");
        addrs.push(serve(McpServer::new(registry)).await);
    }
    let state = Client::new(addrs[0]).parked("deploy", "prod").await;
    let retry = || Some((state.as_str(), accept()));
    let done = Client::new(addrs[1]).call("deploy", json!({"env": "prod"}), retry()).await;
    assert_eq!(text_of(&done), "deployed");
    let again = Client::new(addrs[0]).call("deploy", json!({"env": "prod"}), retry()).await;
    assert_refused(&again, "already used");
    assert_eq!(runs.deploy.load(Ordering::SeqCst), 1);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_declined_approval_runs_nothing() {
    let runs = Arc::new(Runs::default());
    let client = Client::new(server(&runs).await);
    let state = client.parked("deploy", "prod").await;
    let declined = json!({"approval": {"action": "decline"}});
    let reply = client.call("deploy", json!({"env": "prod"}), Some((&state, declined))).await;
    let result = &reply.json()["result"];
    assert_eq!(result["isError"], true, "{result}");
    assert!(text_of(&reply).contains("declined"), "{result}");
    assert_eq!(runs.deploy.load(Ordering::SeqCst), 0);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn responses_that_leave_out_the_question_ask_it_again_with_a_new_state() {
    let runs = Arc::new(Runs::default());
    let client = Client::new(server(&runs).await);
    let state = client.parked("deploy", "prod").await;
    let beside = json!({"something_else": {"action": "accept", "content": {}}});
    let reply = client.call("deploy", json!({"env": "prod"}), Some((&state, beside))).await;
    let result = &reply.json()["result"];
    assert_eq!(result["resultType"], "input_required", "{result}");
    let fresh = result["requestState"].as_str().expect("a new state");
    assert_ne!(fresh, state);
    assert_eq!(runs.deploy.load(Ordering::SeqCst), 0);
    // The old state was spent by that round; the new one completes the call.
    let old = client.call("deploy", json!({"env": "prod"}), Some((&state, accept()))).await;
    assert_refused(&old, "already used");
    let done = client.call("deploy", json!({"env": "prod"}), Some((fresh, accept()))).await;
    assert_eq!(text_of(&done), "deployed");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_answer_that_is_not_an_elicitation_result_is_an_error() {
    let runs = Arc::new(Runs::default());
    let client = Client::new(server(&runs).await);
    let state = client.parked("deploy", "prod").await;
    let reply =
        client.call("deploy", json!({"env": "prod"}), Some((&state, json!({"approval": 7})))).await;
    assert_refused(&reply, "not an elicitation result");
    assert_eq!(runs.deploy.load(Ordering::SeqCst), 0);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_client_without_elicitation_is_told_which_capability_the_call_needs() {
    let runs = Arc::new(Runs::default());
    let mut client = Client::new(server(&runs).await);
    client.capabilities = json!({});
    let reply = client.call("deploy", json!({"env": "prod"}), None).await;
    let error = error_of(&reply);
    assert_eq!(error["code"], -32021, "{error}");
    assert!(error["data"]["requiredCapabilities"]["elicitation"].is_object(), "{error}");
    assert_eq!(runs.deploy.load(Ordering::SeqCst), 0);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_handlers_own_input_requests_go_only_to_a_client_that_can_answer_them() {
    let runs = Arc::new(Runs::default());
    let mut client = Client::new(server(&runs).await);
    client.capabilities = json!({"sampling": {}});
    let first = client.call("ask", json!({}), None).await;
    let result = &first.json()["result"];
    let asked: Vec<&String> =
        result["inputRequests"].as_object().expect("requests").keys().collect();
    assert_eq!(asked, ["think"], "only what the client declared: {result}");
    let state = result["requestState"].as_str().expect("a state");
    let answer = json!({"think": {"role": "assistant", "model": "m",
        "content": {"type": "text", "text": "hello"}}, "pick": {"action": "accept"}});
    let done = client.call("ask", json!({}), Some((state, answer))).await;
    let data = &done.json()["result"]["structuredContent"];
    assert_eq!(data["think"]["content"]["text"], "hello", "{done:?}");
    assert!(data.get("pick").is_none(), "keys never asked are not passed on: {data}");
    assert_eq!(runs.ask.load(Ordering::SeqCst), 1);
}
