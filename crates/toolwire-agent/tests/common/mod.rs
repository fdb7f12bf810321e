//! A local mock model server that replays recorded payloads, and the tools the tests run.

use std::collections::VecDeque;
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use axum::Router;
use axum::body::{Body, Bytes};
use axum::extract::State;
use axum::http::{HeaderMap, StatusCode};
use axum::response::Response;
use serde_json::{Value, json};
use tokio::sync::Notify;
use toolwire::{Provider, Registry, Tool, ToolResult};
use toolwire_agent::{HttpClient, HttpClientBuilder, RetryPolicy};

pub(crate) use toolwire_test_support::recorded::{events, text as fixture};

/// One piece of a scripted streamed body.
#[derive(Clone)]
pub(crate) enum Piece {
    Text(String),
    Sleep(Duration),
    /// Waits until the tests notify.
    Gate(Arc<Notify>),
    /// Breaks the connection off.
    Cut,
}

/// One scripted reply.
#[derive(Clone)]
pub(crate) struct Reply {
    pub(crate) status: u16,
    pub(crate) headers: Vec<(&'static str, String)>,
    pub(crate) body: Vec<Piece>,
    pub(crate) stream: bool,
}

impl Reply {
    pub(crate) fn json(text: String) -> Self {
        Self { status: 200, headers: vec![], body: vec![Piece::Text(text)], stream: false }
    }

    pub(crate) fn sse(pieces: Vec<Piece>) -> Self {
        Self { status: 200, headers: vec![], body: pieces, stream: true }
    }

    pub(crate) fn sse_events(events: Vec<String>) -> Self {
        Self::sse(events.into_iter().map(Piece::Text).collect())
    }

    pub(crate) fn status(status: u16, body: &str) -> Self {
        let body = vec![Piece::Text(json!({"error": {"message": body}}).to_string())];
        Self { status, headers: vec![], body, stream: false }
    }

    pub(crate) fn header(mut self, name: &'static str, value: &str) -> Self {
        self.headers.push((name, value.to_owned()));
        self
    }
}

/// A request the server received.
#[derive(Clone, Debug)]
pub(crate) struct Seen {
    pub(crate) at: Instant,
    pub(crate) path: String,
    pub(crate) headers: HeaderMap,
    pub(crate) body: Value,
}

#[derive(Default)]
struct Script {
    replies: Mutex<VecDeque<Reply>>,
    seen: Mutex<Vec<Seen>>,
}

/// A mock server on 127.0.0.1.
pub(crate) struct Mock {
    pub(crate) base_url: String,
    script: Arc<Script>,
}

impl Mock {
    /// Starts a server that answers with `replies`, in order.
    pub(crate) async fn start(replies: Vec<Reply>) -> Self {
        let script =
            Arc::new(Script { replies: Mutex::new(replies.into()), seen: Mutex::default() });
        let app = Router::new().fallback(answer).with_state(Arc::clone(&script));
        let listener =
            tokio::net::TcpListener::bind("127.0.0.1:0").await.expect("bind 127.0.0.1:0");
        let address = listener.local_addr().expect("local address");
        tokio::spawn(async move { axum::serve(listener, app).await.ok() });
        Self { base_url: format!("http://{address}"), script }
    }

    /// The requests received so far.
    pub(crate) fn seen(&self) -> Vec<Seen> {
        self.script.seen.lock().expect("seen").clone()
    }

    /// A client of `provider` at this server, with quick retries.
    pub(crate) fn client(&self, provider: Provider) -> HttpClientBuilder {
        let retry = RetryPolicy {
            base_delay: Duration::from_millis(10),
            max_delay: Duration::from_millis(50),
            ..RetryPolicy::default()
        };
        HttpClient::builder(provider, "test-model")
            .base_url(&self.base_url)
            .api_key("test-key")
            .retry(retry)
    }
}

async fn answer(State(script): State<Arc<Script>>, request: axum::extract::Request) -> Response {
    let path = request.uri().to_string();
    let headers = request.headers().clone();
    let bytes = axum::body::to_bytes(request.into_body(), usize::MAX).await.unwrap_or_default();
    let body = serde_json::from_slice(&bytes).unwrap_or(Value::Null);
    script.seen.lock().expect("seen").push(Seen { at: Instant::now(), path, headers, body });
    let reply = script.replies.lock().expect("replies").pop_front();
    let Some(reply) = reply else {
        return Response::builder()
            .status(500)
            .body(Body::from("the script ran out"))
            .expect("response");
    };
    let mut response =
        Response::builder().status(StatusCode::from_u16(reply.status).expect("status"));
    let kind = if reply.stream { "text/event-stream" } else { "application/json" };
    response = response.header("content-type", kind);
    for (name, value) in &reply.headers {
        response = response.header(*name, value);
    }
    let pieces = futures_util::stream::unfold(reply.body.into_iter(), |mut pieces| async move {
        loop {
            match pieces.next()? {
                Piece::Text(text) => return Some((Ok(Bytes::from(text)), pieces)),
                Piece::Sleep(wait) => tokio::time::sleep(wait).await,
                Piece::Gate(gate) => gate.notified().await,
                Piece::Cut => return Some((Err(std::io::Error::other("cut")), pieces)),
            }
        }
    });
    response.body(Body::from_stream(pieces)).expect("response")
}

/// A registry with `get_weather`, which reports 14 degrees for any location, and tells
/// `started` when a call begins.
pub(crate) fn weather(started: Option<Arc<Notify>>) -> Registry {
    let tool = Tool::define("get_weather")
        .description("The weather at a location")
        .parameters(json!({"type": "object", "properties": {"location": {"type": "string"}}, "required": ["location"]}))
        .execute_sync(move |args, _| {
            if let Some(started) = &started {
                started.notify_one();
            }
            ToolResult::ok(json!({"temp": 14}), format!("14 degrees in {}", args["location"].as_str().unwrap_or("?")))
        })
        .build()
        .expect("get_weather is valid");
    Registry::builder().register(tool).seal().expect("registry")
}

/// The providers, with their fixture folder names.
pub(crate) const PROVIDERS: [(Provider, &str); 4] = [
    (Provider::OpenAi, "openai"),
    (Provider::Responses, "responses"),
    (Provider::Anthropic, "anthropic"),
    (Provider::Gemini, "gemini"),
];

/// Whether every call in `messages` is answered by exactly one result, right after its turn.
pub(crate) fn balanced(provider: Provider, messages: &[Value]) -> bool {
    let ids = |items: &[Value], pointer: &str| -> Vec<String> {
        items
            .iter()
            .filter_map(|i| i.pointer(pointer).and_then(Value::as_str).map(str::to_owned))
            .collect()
    };
    match provider {
        Provider::Responses => {
            let calls = messages.iter().filter(|m| m["type"] == "function_call");
            let outputs: Vec<&Value> =
                messages.iter().filter(|m| m["type"] == "function_call_output").collect();
            let answered = |id: &Value| outputs.iter().filter(|o| o["call_id"] == *id).count() == 1;
            calls.clone().all(|c| answered(&c["call_id"])) && calls.count() == outputs.len()
        }
        Provider::Anthropic => messages.iter().enumerate().all(|(i, m)| {
            let uses: Vec<&Value> = m["content"]
                .as_array()
                .into_iter()
                .flatten()
                .filter(|b| b["type"] == "tool_use")
                .collect();
            if m["role"] != "assistant" || uses.is_empty() {
                return true;
            }
            let Some(next) = messages.get(i + 1).and_then(|n| n["content"].as_array()) else {
                return false;
            };
            let used = ids(&uses.into_iter().cloned().collect::<Vec<_>>(), "/id");
            used == ids(&next[..used.len().min(next.len())], "/tool_use_id")
        }),
        Provider::Gemini => messages.iter().enumerate().all(|(i, m)| {
            let parts = m["parts"].as_array().map(Vec::as_slice).unwrap_or_default();
            let calls = parts.iter().filter(|p| p.get("functionCall").is_some()).count();
            if m["role"] != "model" || calls == 0 {
                return true;
            }
            let next = messages
                .get(i + 1)
                .and_then(|n| n["parts"].as_array())
                .map(Vec::as_slice)
                .unwrap_or_default();
            next.iter().filter(|p| p.get("functionResponse").is_some()).count() == calls
        }),
        _ => messages.iter().enumerate().all(|(i, m)| {
            let calls = m["tool_calls"].as_array().map(Vec::as_slice).unwrap_or_default();
            let wanted = ids(calls, "/id");
            let answers =
                messages.iter().skip(i + 1).take(wanted.len()).cloned().collect::<Vec<_>>();
            wanted == ids(&answers, "/tool_call_id")
        }),
    }
}

/// An in-process model speaking OpenAI's wire format: each turn makes the calls it is given,
/// or, when it has none left, answers "done".
pub(crate) struct Scripted {
    turns: Mutex<VecDeque<Vec<toolwire::ToolCall>>>,
    pub(crate) requests: Arc<Mutex<Vec<Vec<Value>>>>,
    /// The names of the tools each request offered, in order.
    pub(crate) offered: Arc<Mutex<Vec<Vec<String>>>>,
}

impl Scripted {
    pub(crate) fn new(turns: Vec<Vec<toolwire::ToolCall>>) -> Self {
        Self { turns: Mutex::new(turns.into()), requests: Arc::default(), offered: Arc::default() }
    }

    /// A model that makes the same call forever.
    pub(crate) fn looping(call: toolwire::ToolCall, times: usize) -> Self {
        Self::new(
            (0..times)
                .map(|i| {
                    let mut call = call.clone();
                    call.call_id = format!("call_{i}").into();
                    vec![call]
                })
                .collect(),
        )
    }
}

impl toolwire_agent::ModelClient for Scripted {
    fn provider(&self) -> Provider {
        Provider::OpenAi
    }

    fn model(&self) -> &str {
        "scripted"
    }

    fn complete<'a>(
        &'a self,
        request: toolwire_agent::ModelRequest<'a>,
        sink: &'a mut dyn toolwire_agent::TurnSink,
    ) -> toolwire_agent::BoxFuture<'a, Result<toolwire_agent::ModelTurn, toolwire_agent::Error>>
    {
        self.requests.lock().expect("requests").push(request.messages.to_vec());
        let names = request.tools.iter().map(|tool| tool["function"]["name"].to_string());
        self.offered
            .lock()
            .expect("offered")
            .push(names.map(|n| n.trim_matches('"').to_owned()).collect());
        let calls = self.turns.lock().expect("turns").pop_front().unwrap_or_default();
        Box::pin(async move {
            use toolwire_agent::ModelTurn;
            if calls.is_empty() {
                sink.text("done");
                let assistant = vec![json!({"role": "assistant", "content": "done"})];
                return Ok(ModelTurn::new(assistant, calls).with_text("done"));
            }
            let wire: Vec<Value> = calls
                .iter()
                .map(|c| {
                    json!({"id": c.call_id.as_str(), "type": "function",
                "function": {"name": &*c.tool, "arguments": c.arguments.to_string()}})
                })
                .collect();
            calls.iter().for_each(|call| sink.call(call));
            let assistant = vec![json!({"role": "assistant", "content": null, "tool_calls": wire})];
            Ok(ModelTurn::new(assistant, calls))
        })
    }
}
