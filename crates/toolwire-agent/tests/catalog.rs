//! The deferred catalog in the agent loop: the tools each turn offers, the search tool, and
//! the gate, tried as a model that guesses names would try it.

use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};

use crate::common::{Mock, Reply, Scripted, balanced, fixture};
use serde_json::{Value, json};
use toolwire::{FailureKind, Provider, Registry, Tool, ToolCall, ToolResult};
use toolwire_agent::{Agent, ErrorKind, RunOutcome, SEARCH_TOOL, StopReason};

/// 150 filler tools, `get_weather` (which counts its runs) and `read_file`: past the default
/// threshold of 100, so every tool is deferred but `read_file`, set to load always.
fn big_registry(runs: &Arc<AtomicUsize>) -> Registry {
    let filler = (0..150).map(|i| {
        Tool::define(format!("filler_{i}"))
            .description(format!("Does filler job number {i} for the accounts team"))
            .execute_sync(|_, _| ToolResult::ok(Value::Null, "filled"))
            .build()
            .unwrap()
    });
    let counter = Arc::clone(runs);
    let weather = Tool::define("get_weather")
        .description("Get the current weather forecast for a city")
        .parameters(json!({"type": "object", "properties": {"city": {"type": "string"}}}))
        .execute_sync(move |args, _| {
            counter.fetch_add(1, Ordering::SeqCst);
            ToolResult::ok(json!({"temp": 21}), format!("21 in {}", args["city"]))
        })
        .build()
        .unwrap();
    let read = Tool::define("read_file")
        .description("Read a file")
        .execute_sync(|_, _| ToolResult::ok(Value::Null, "text"))
        .build()
        .unwrap();
    Registry::builder()
        .register_all(filler)
        .register(weather)
        .register(read)
        .defer_loading("read_file", false)
        .seal()
        .unwrap()
}

fn search(id: &str, query: &str) -> ToolCall {
    ToolCall::new(id, SEARCH_TOOL, json!({"query": query}))
}

fn weather(id: &str) -> ToolCall {
    ToolCall::new(id, "get_weather", json!({"city": "Oslo"}))
}

fn text(outcome: &RunOutcome, index: usize) -> String {
    outcome.receipts[index].result.text().unwrap_or_default().to_owned()
}

#[tokio::test]
async fn a_deferred_tool_is_offered_once_a_search_finds_it_and_then_runs() {
    let runs = Arc::new(AtomicUsize::new(0));
    let model = Scripted::new(vec![vec![search("s1", "weather forecast")], vec![weather("w1")]]);
    let offered = Arc::clone(&model.offered);
    let outcome = Agent::builder(model, big_registry(&runs)).build().run("weather?").await;
    assert!(outcome.is_finished(), "{:?}", outcome.stop);
    let offered = offered.lock().unwrap().clone();
    assert_eq!(offered[0], ["read_file", SEARCH_TOOL], "the first turn: loaded tools and search");
    assert_eq!(offered[1], ["read_file", SEARCH_TOOL, "get_weather"], "found tools are appended");
    assert_eq!(offered[2], offered[1], "and stay");
    assert!(text(&outcome, 0).contains("get_weather"), "{}", text(&outcome, 0));
    assert_eq!(outcome.receipts[1].result.failure_kind(), None);
    assert_eq!(runs.load(Ordering::SeqCst), 1);
    assert_eq!(outcome.state.found_tools[0], "get_weather");
    assert!(balanced(Provider::OpenAi, &outcome.state.messages));
}

#[tokio::test]
async fn a_guessed_name_of_a_deferred_tool_is_refused_and_runs_nothing() {
    let runs = Arc::new(AtomicUsize::new(0));
    let model = Scripted::new(vec![vec![weather("w1")]]);
    let outcome = Agent::builder(model, big_registry(&runs)).build().run("weather?").await;
    assert!(outcome.is_finished(), "{:?}", outcome.stop);
    assert_eq!(outcome.receipts[0].result.failure_kind(), Some(FailureKind::Denied));
    assert!(
        text(&outcome, 0).contains("no search of this run has found it"),
        "{}",
        text(&outcome, 0)
    );
    assert_eq!(runs.load(Ordering::SeqCst), 0, "the handler never ran");
    assert!(outcome.state.found_tools.is_empty());
}

#[tokio::test]
async fn a_tool_found_by_a_search_in_the_same_turn_as_its_call_is_refused() {
    let runs = Arc::new(AtomicUsize::new(0));
    let turns = vec![vec![search("s1", "weather"), weather("w1")], vec![weather("w2")]];
    let outcome = Agent::builder(Scripted::new(turns), big_registry(&runs)).build().run("go").await;
    assert!(outcome.is_finished(), "{:?}", outcome.stop);
    assert_eq!(outcome.receipts[1].result.failure_kind(), Some(FailureKind::Denied));
    assert_eq!(outcome.receipts[2].result.failure_kind(), None, "the next turn may call it");
    assert_eq!(runs.load(Ordering::SeqCst), 1);
}

#[tokio::test]
async fn a_tool_found_in_another_run_is_refused_in_a_new_one_and_kept_in_a_continued_one() {
    let runs = Arc::new(AtomicUsize::new(0));
    let registry = big_registry(&runs);
    let first =
        Agent::builder(Scripted::new(vec![vec![search("s1", "weather")]]), registry.clone())
            .build()
            .run("find")
            .await;
    assert_eq!(first.state.found_tools, ["get_weather"]);
    let fresh = Agent::builder(Scripted::new(vec![vec![weather("w1")]]), registry.clone())
        .build()
        .run("call")
        .await;
    assert_eq!(fresh.receipts[0].result.failure_kind(), Some(FailureKind::Denied));
    let continued = Agent::builder(Scripted::new(vec![vec![weather("w2")]]), registry)
        .build()
        .run("call")
        .after(first.state)
        .await;
    assert_eq!(continued.receipts[0].result.failure_kind(), None);
    assert_eq!(runs.load(Ordering::SeqCst), 1);
}

#[tokio::test]
async fn bad_search_arguments_fail_in_words_and_find_nothing() {
    let runs = Arc::new(AtomicUsize::new(0));
    let calls = vec![
        ToolCall::new("a", SEARCH_TOOL, json!({})),
        ToolCall::new("b", SEARCH_TOOL, json!({"query": 7})),
        ToolCall::new("c", SEARCH_TOOL, json!({"query": "  "})),
        ToolCall::new("d", SEARCH_TOOL, json!({"query": "weather", "limit": 0})),
        ToolCall::new("e", SEARCH_TOOL, json!({"query": "weather", "limit": "all"})),
        ToolCall::from_json_text("f", SEARCH_TOOL, "{\"query\": "),
        ToolCall::new("g", SEARCH_TOOL, json!({"query": "zzyzx qqqq"})),
    ];
    let outcome =
        Agent::builder(Scripted::new(vec![calls]), big_registry(&runs)).build().run("go").await;
    let expected = [
        "`query` is missing",
        "must be a string",
        "is empty",
        "`limit` must be",
        "`limit` must be",
        "could not be read",
    ];
    for (index, wanted) in expected.iter().enumerate() {
        let receipt = &outcome.receipts[index];
        assert_eq!(receipt.result.failure_kind(), Some(FailureKind::InvalidInput), "{index}");
        assert!(text(&outcome, index).contains(wanted), "{index}: {}", text(&outcome, index));
    }
    assert!(text(&outcome, 6).contains("No tool matches"), "{}", text(&outcome, 6));
    assert!(outcome.state.found_tools.is_empty());
}

#[tokio::test]
async fn a_search_returns_at_most_its_limit_and_only_deferred_tools() {
    let runs = Arc::new(AtomicUsize::new(0));
    let call = ToolCall::new(
        "s",
        SEARCH_TOOL,
        json!({"query": "filler job accounts read file", "limit": 50}),
    );
    let outcome = Agent::builder(Scripted::new(vec![vec![call]]), big_registry(&runs))
        .build()
        .run("go")
        .await;
    let listed = outcome.receipts[0].result.json()["tools"].as_array().unwrap().len();
    assert_eq!(listed, 20, "the limit is capped at 20");
    assert!(!outcome.state.found_tools.iter().any(|name| name == "read_file"), "loaded already");
}

#[tokio::test]
async fn under_the_threshold_every_tool_is_offered_and_there_is_no_search() {
    let runs = Arc::new(AtomicUsize::new(0));
    let counter = Arc::clone(&runs);
    let weather_tool = Tool::define("get_weather")
        .execute_sync(move |_, _| {
            counter.fetch_add(1, Ordering::SeqCst);
            ToolResult::ok(Value::Null, "sunny")
        })
        .build()
        .unwrap();
    let registry = Registry::builder().register(weather_tool).seal().unwrap();
    let model = Scripted::new(vec![vec![weather("w1")], vec![search("s", "x")]]);
    let offered = Arc::clone(&model.offered);
    let outcome = Agent::builder(model, registry).build().run("go").await;
    assert_eq!(offered.lock().unwrap()[0], ["get_weather"]);
    assert_eq!(runs.load(Ordering::SeqCst), 1);
    assert_eq!(outcome.receipts[1].result.failure_kind(), Some(FailureKind::UnknownTool));
}

#[tokio::test]
async fn a_registry_tool_named_like_the_search_fails_the_run_in_words() {
    let own = Tool::define(SEARCH_TOOL)
        .execute_sync(|_, _| ToolResult::ok(Value::Null, ""))
        .build()
        .unwrap();
    let registry =
        Registry::builder().register(own).defer_loading(SEARCH_TOOL, true).seal().unwrap();
    let outcome = Agent::builder(Scripted::new(vec![]), registry).build().run("go").await;
    let StopReason::ModelError(error) = &outcome.stop else { panic!("{:?}", outcome.stop) };
    assert_eq!(error.kind(), ErrorKind::Config);
    assert!(error.to_string().contains("rename the tool"), "{error}");
}

/// An Anthropic reply that calls `tool` with `input`, as the Messages API sends one.
fn anthropic_call(id: &str, tool: &str, input: Value) -> String {
    json!({"id": format!("msg_{id}"), "type": "message", "role": "assistant",
        "model": "claude-sonnet-4-5", "stop_reason": "tool_use", "stop_sequence": null,
        "content": [{"type": "tool_use", "id": id, "name": tool, "input": input}],
        "usage": {"input_tokens": 10, "output_tokens": 5}})
    .to_string()
}

#[tokio::test]
async fn anthropic_gets_every_deferred_tool_marked_and_a_search_answered_with_tool_references() {
    let runs = Arc::new(AtomicUsize::new(0));
    let replies = vec![
        Reply::json(anthropic_call("toolu_s", SEARCH_TOOL, json!({"query": "weather forecast"}))),
        // The API expanded the reference: the model calls the tool it names.
        Reply::json(anthropic_call("toolu_w", "get_weather", json!({"city": "Oslo"}))),
        Reply::json(fixture("anthropic", "final.json")),
    ];
    let mock = Mock::start(replies).await;
    let client = mock.client(Provider::Anthropic).stream(false).build().unwrap();
    let outcome = Agent::builder(client, big_registry(&runs)).build().run("weather?").await;
    assert!(outcome.is_finished(), "{:?}", outcome.stop);
    assert_eq!(runs.load(Ordering::SeqCst), 1);
    let seen = mock.seen();
    let tools = seen[0].body["tools"].as_array().unwrap();
    assert_eq!(tools[0]["name"], "read_file");
    assert!(tools[0].get("defer_loading").is_none(), "loaded tools are not marked");
    assert_eq!(tools[1]["name"], SEARCH_TOOL);
    assert_eq!(tools.len(), 2 + 151, "every deferred tool is sent");
    assert!(tools[2..].iter().all(|tool| tool["defer_loading"] == true));
    assert_eq!(seen[1].body["tools"], seen[0].body["tools"], "the same tools every turn");
    // The search's result, as the documented custom tool search answers: tool_reference blocks.
    let answer = &seen[1].body["messages"][2]["content"][0];
    assert_eq!(answer["type"], "tool_result");
    assert_eq!(answer["tool_use_id"], "toolu_s");
    assert_eq!(answer["content"][0], json!({"type": "tool_reference", "tool_name": "get_weather"}));
    assert!(balanced(Provider::Anthropic, &outcome.state.messages));
}

#[tokio::test]
async fn responses_gets_a_client_tool_search_whose_output_carries_the_found_definitions() {
    let runs = Arc::new(AtomicUsize::new(0));
    let search = json!({"id": "resp_1", "object": "response", "status": "completed",
        "output": [{"type": "tool_search_call", "id": "tsc_1", "call_id": "call_search",
            "execution": "client", "arguments": {"query": "weather forecast"}, "status": "completed"}]});
    let call = json!({"id": "resp_2", "object": "response", "status": "completed",
        "output": [{"type": "function_call", "id": "fc_1", "call_id": "call_w", "name": "get_weather",
            "arguments": "{\"city\":\"Oslo\"}", "status": "completed"}]});
    let replies = vec![
        Reply::json(search.to_string()),
        Reply::json(call.to_string()),
        Reply::json(fixture("responses", "final.json")),
    ];
    let mock = Mock::start(replies).await;
    let client = mock.client(Provider::Responses).stream(false).build().unwrap();
    let outcome = Agent::builder(client, big_registry(&runs)).build().run("weather?").await;
    assert!(outcome.is_finished(), "{:?}", outcome.stop);
    assert_eq!(runs.load(Ordering::SeqCst), 1);
    let seen = mock.seen();
    let tools = seen[0].body["tools"].as_array().unwrap();
    assert_eq!(tools.len(), 2, "the loaded tool and the search; no deferred tool: {tools:?}");
    assert_eq!(tools[0]["name"], "read_file");
    assert_eq!(tools[1]["type"], "tool_search");
    assert_eq!(tools[1]["execution"], "client");
    assert_eq!(tools[1]["parameters"]["required"], json!(["query"]));
    let input = seen[1].body["input"].as_array().unwrap();
    let asked = input.iter().find(|item| item["type"] == "tool_search_call").unwrap();
    assert_eq!(asked["call_id"], "call_search", "the search call goes back as it came");
    let output = input.iter().find(|item| item["type"] == "tool_search_output").unwrap();
    assert_eq!(output["call_id"], "call_search");
    assert_eq!(output["execution"], "client");
    assert_eq!(output["tools"][0]["type"], "function");
    assert_eq!(output["tools"][0]["name"], "get_weather");
    assert!(output["tools"][0]["parameters"]["properties"]["city"].is_object());
    assert_eq!(seen[1].body["tools"], seen[0].body["tools"], "the same tools every turn");
}

#[tokio::test]
async fn gemini_gets_the_found_tools_appended_to_its_declarations() {
    let runs = Arc::new(AtomicUsize::new(0));
    let search = json!({"candidates": [{"content": {"role": "model", "parts": [
        {"functionCall": {"name": SEARCH_TOOL, "args": {"query": "weather forecast"}}}]},
        "finishReason": "STOP"}]});
    let replies =
        vec![Reply::json(search.to_string()), Reply::json(fixture("gemini", "final.json"))];
    let mock = Mock::start(replies).await;
    let client = mock.client(Provider::Gemini).stream(false).build().unwrap();
    let outcome = Agent::builder(client, big_registry(&runs)).build().run("weather?").await;
    assert!(outcome.is_finished(), "{:?}", outcome.stop);
    let seen = mock.seen();
    let names = |body: &Value| -> Vec<String> {
        let declarations = body["tools"][0]["functionDeclarations"].as_array().unwrap();
        declarations.iter().map(|d| d["name"].as_str().unwrap().to_owned()).collect()
    };
    assert_eq!(names(&seen[0].body), ["read_file", SEARCH_TOOL]);
    assert_eq!(names(&seen[1].body), ["read_file", SEARCH_TOOL, "get_weather"]);
}

/// Review of issue 42: a run resumed after the registry loads a tool it had found sends the
/// tool once, not also among the found ones (providers refuse a name given twice).
#[tokio::test]
async fn regression_a_found_tool_the_registry_now_loads_is_sent_once() {
    let runs = Arc::new(AtomicUsize::new(0));
    let first =
        Agent::builder(Scripted::new(vec![vec![search("s1", "weather")]]), big_registry(&runs))
            .build()
            .run("find")
            .await;
    assert_eq!(first.state.found_tools, ["get_weather"]);
    let tools: Vec<Tool> = big_registry(&runs).tools().to_vec();
    let reloaded = Registry::builder()
        .register_all(tools)
        .defer_loading("read_file", false)
        .defer_loading("get_weather", false)
        .seal()
        .unwrap();
    let model = Scripted::new(vec![vec![weather("w1")]]);
    let offered = Arc::clone(&model.offered);
    let continued = Agent::builder(model, reloaded).build().run("call").after(first.state).await;
    assert_eq!(continued.receipts[0].result.failure_kind(), None);
    let first_turn = offered.lock().unwrap()[0].clone();
    assert_eq!(
        first_turn.iter().filter(|name| *name == "get_weather").count(),
        1,
        "{first_turn:?}"
    );
}

/// Review of issue 42: a deferred tool inactive for the agent's state is neither found by a
/// search nor sent.
#[tokio::test]
async fn regression_a_search_does_not_find_a_tool_inactive_for_the_state() {
    struct Plan {
        paying: bool,
    }
    let filler = (0..120).map(|i| {
        Tool::define(format!("filler_{i}"))
            .execute_sync(|_, _| ToolResult::ok(Value::Null, ""))
            .build()
            .unwrap()
    });
    let weather = Tool::define("get_weather")
        .description("Get the weather forecast")
        .active(|plan: &Plan| plan.paying)
        .execute_sync(|_, _| ToolResult::ok(Value::Null, "sunny"))
        .build()
        .unwrap();
    let registry = Registry::builder().register_all(filler).register(weather).seal().unwrap();
    let model = Scripted::new(vec![vec![search("s1", "weather forecast")]]);
    let outcome = Agent::builder(model, registry)
        .state(Arc::new(Plan { paying: false }))
        .build()
        .run("weather?")
        .await;
    assert!(!text(&outcome, 0).contains("get_weather"), "{}", text(&outcome, 0));
    assert!(outcome.state.found_tools.is_empty());
}
