//! The catalog settings: which tools are deferred, by choice or past the threshold, and the
//! search over the deferred ones.

use serde_json::Value;
use toolwire::registry::DEFAULT_DEFER_THRESHOLD;
use toolwire::{Provider, Registry, SealErrorKind, Tool, ToolResult};

fn tool(name: &str, description: &str) -> Tool {
    Tool::define(name)
        .description(description)
        .execute_sync(|_, _| ToolResult::ok(Value::Null, ""))
        .build()
        .expect("a tool")
}

fn many(count: usize) -> Vec<Tool> {
    (0..count).map(|i| tool(&format!("tool_{i}"), "Does a thing")).collect()
}

#[test]
fn below_the_threshold_nothing_is_deferred_and_at_it_everything_is() {
    let below = Registry::builder().register_all(many(DEFAULT_DEFER_THRESHOLD - 1)).seal().unwrap();
    assert_eq!(below.deferred_len(), 0);
    assert_eq!(below.loaded_definitions(Provider::OpenAi, &()).len(), DEFAULT_DEFER_THRESHOLD - 1);
    let at = Registry::builder().register_all(many(DEFAULT_DEFER_THRESHOLD)).seal().unwrap();
    assert_eq!(at.deferred_len(), DEFAULT_DEFER_THRESHOLD);
    assert!(at.loaded_definitions(Provider::OpenAi, &()).is_empty());
    assert_eq!(
        at.definitions(Provider::OpenAi, &()).len(),
        DEFAULT_DEFER_THRESHOLD,
        "all described"
    );
}

#[test]
fn a_tool_set_to_load_always_stays_past_the_threshold_and_the_last_setting_wins() {
    let registry = Registry::builder()
        .register_all(many(5))
        .defer_threshold(Some(3))
        .defer_loading("tool_1", true)
        .defer_loading("tool_1", false)
        .seal()
        .unwrap();
    assert!(!registry.is_deferred("tool_1"));
    assert!(registry.is_deferred("tool_0"));
    assert_eq!(registry.deferred_len(), 4);
    assert!(!registry.is_deferred("no_such_tool"));
}

#[test]
fn no_threshold_defers_only_the_tools_set_to_wait() {
    let registry = Registry::builder()
        .register_all(many(500))
        .defer_threshold(None)
        .defer_loading("tool_7", true)
        .seal()
        .unwrap();
    assert_eq!(registry.deferred_len(), 1);
    assert!(registry.is_deferred("tool_7"));
}

#[test]
fn a_setting_for_a_tool_that_is_not_registered_fails_the_seal_naming_it() {
    let error = Registry::builder()
        .register_all(many(2))
        .defer_loading("tol_1", true)
        .defer_loading("ghost", false)
        .defer_loading("tol_1", false)
        .seal()
        .unwrap_err();
    assert_eq!(error.kind(), SealErrorKind::UnknownNames);
    assert_eq!(
        error.to_string(),
        r#"defer_loading names tools that are not registered: "tol_1", "ghost""#
    );
    assert_eq!(error.names().collect::<Vec<_>>(), ["tol_1", "ghost"]);
}

#[test]
fn the_deferred_search_finds_only_deferred_tools() {
    let registry = Registry::builder()
        .register(tool("read_file", "Read a file from the disk"))
        .register(tool("read_url", "Read a web page"))
        .register(tool("send_mail", "Send an email"))
        .defer_loading("read_url", true)
        .defer_loading("send_mail", true)
        .seal()
        .unwrap();
    let all: Vec<_> = registry.search("read", 5).iter().map(|hit| hit.tool.name()).collect();
    assert_eq!(all.len(), 2);
    let deferred: Vec<_> =
        registry.search_deferred("read", 5).iter().map(|hit| hit.tool.name()).collect();
    assert_eq!(deferred, ["read_url"]);
}

mod forms {
    use serde_json::{Value, json};
    use toolwire::provider::{anthropic, responses};
    use toolwire::registry::SEARCH_TOOL;
    use toolwire::{CallId, Provider, Receipt, Registry, ToolCall, ToolResult};

    fn registry() -> Registry {
        Registry::builder()
            .register(super::tool("get_weather", "Get the weather forecast for a city"))
            .register(super::tool("send_mail", "Send an email"))
            .defer_threshold(Some(1))
            .seal()
            .unwrap()
    }

    fn search_receipt(provider: Provider, query: &str) -> Receipt {
        let answer = registry().answer_search(&json!({"query": query}), provider);
        Receipt::new(SEARCH_TOOL, Some(CallId::from("call_s")), answer.result)
    }

    #[test]
    fn a_streamed_responses_tool_search_call_is_a_call_of_the_search() {
        let mut calls = responses::CallAccumulator::default();
        let item = json!({"type": "tool_search_call", "id": "tsc_1", "call_id": "call_s",
            "execution": "client", "arguments": {"query": "weather"}, "status": "completed"});
        calls.push(&json!({"type": "response.output_item.added", "output_index": 0,
            "item": {"type": "tool_search_call", "id": "tsc_1", "call_id": "call_s",
                "execution": "client", "status": "in_progress"}}));
        calls.push(&json!({"type": "response.output_item.done", "output_index": 0, "item": item}));
        let ready = calls.take_ready();
        assert_eq!(ready, [ToolCall::new("call_s", SEARCH_TOOL, json!({"query": "weather"}))]);
    }

    #[test]
    fn a_responses_search_call_goes_back_as_the_item_it_came_as_and_is_answered_by_an_output() {
        let call = ToolCall::new("call_s", SEARCH_TOOL, json!({"query": "weather"}));
        let items = responses::render_turn("", std::slice::from_ref(&call));
        assert_eq!(items[0]["type"], "tool_search_call");
        assert_eq!(responses::parse_calls(&Value::Array(items.clone())).unwrap(), [call]);
        let receipt = search_receipt(Provider::Responses, "weather forecast");
        let outputs = responses::render_results_for(&json!({"output": items}), &[receipt]).unwrap();
        assert_eq!(outputs[0]["type"], "tool_search_output");
        assert_eq!(outputs[0]["tools"][0]["name"], "get_weather");
        assert_eq!(outputs[0]["tools"][0]["type"], "function");
    }

    /// Review of issue 42: a search OpenAI hosts itself (`execution: "server"`, no call id)
    /// is not a call for the client, and does not fail the reply.
    #[test]
    fn regression_a_hosted_tool_search_call_is_not_a_call() {
        let reply = json!({"output": [
            {"type": "tool_search_call", "id": "tsc_1", "call_id": null, "execution": "server",
                "arguments": {"query": "weather"}, "status": "completed"},
            {"type": "function_call", "call_id": "call_w", "name": "get_weather", "arguments": "{}"}]});
        let calls = responses::parse_calls(&reply).unwrap();
        assert_eq!(calls, [ToolCall::new("call_w", "get_weather", json!({}))]);
        let mut streamed = responses::CallAccumulator::default();
        streamed.push(&json!({"type": "response.completed", "response": reply}));
        assert_eq!(streamed.finish().len(), 1);
    }

    /// Review of issue 42: a host's own tool named like the search, in a registry that
    /// defers nothing, keeps its own answer rather than becoming `tool_reference` blocks.
    #[test]
    fn regression_a_hosts_own_search_tools_result_is_not_rendered_as_references() {
        let own = ToolResult::ok(json!({"tools": [{"name": "x"}]}), "my own search");
        let receipt = Receipt::new(SEARCH_TOOL, Some(CallId::from("c")), own);
        let rendered = anthropic::render_results(&[receipt]);
        let content = rendered["content"][0]["content"].as_str().unwrap_or_default();
        assert!(content.starts_with("my own search"), "{rendered}");
    }

    #[test]
    fn an_anthropic_search_that_finds_nothing_says_so_in_text() {
        let found = anthropic::render_results(&[search_receipt(Provider::Anthropic, "weather")]);
        assert_eq!(found["content"][0]["content"][0]["type"], "tool_reference");
        let none = anthropic::render_results(&[search_receipt(Provider::Anthropic, "zzyzx")]);
        let text = none["content"][0]["content"].as_str().unwrap();
        assert!(text.contains("No tool matches"), "{text}");
    }

    #[test]
    fn a_search_answer_lists_definitions_only_where_the_provider_sends_them_back() {
        let chat = search_receipt(Provider::OpenAi, "weather");
        assert!(chat.result.json().get("definitions").is_none());
        let responses = search_receipt(Provider::Responses, "weather");
        assert_eq!(responses.result.json()["definitions"][0]["name"], "get_weather");
    }
}

/// The context a turn's tools take with 10,000 tools, estimated at 4 characters a token:
/// the loaded tools, the search, and the found ones (for Anthropic the deferred tools are in
/// the request but, marked `defer_loading`, not in the model's context).
#[test]
fn ten_thousand_tools_cost_a_turn_under_five_percent_of_a_200k_context() {
    use serde_json::json;
    use toolwire::provider::CatalogTools;
    let tools: Vec<Tool> = (0..10_000)
        .map(|i| {
            Tool::define(format!("server_{}__action_{i}", i % 40))
                .description(format!("Does action {i} on the records of server {}", i % 40))
                .parameters(json!({"type": "object", "properties": {
                    "id": {"type": "string", "description": "The record to act on"},
                    "note": {"type": "string", "description": "Why"}}}))
                .execute_sync(|_, _| ToolResult::ok(Value::Null, ""))
                .build()
                .unwrap()
        })
        .collect();
    let registry = Registry::builder().register_all(tools).seal().unwrap();
    assert_eq!(registry.deferred_len(), 10_000, "past the default threshold");
    let search = toolwire::registry::search_tool().unwrap();
    // Three searches of five tools each have been made.
    let found: Vec<&Value> =
        (0..15).map(|i| registry.tools()[i * 600].definition(Provider::OpenAi)).collect();
    for provider in [Provider::OpenAi, Provider::Responses, Provider::Anthropic, Provider::Gemini] {
        let api = provider.model_api().unwrap();
        let deferred: Vec<&Value> =
            registry.tools().iter().map(|tool| tool.definition(provider)).collect();
        let found: Vec<&Value> = found
            .iter()
            .filter_map(|found| registry.get(found["function"]["name"].as_str()?))
            .map(|tool| tool.definition(provider))
            .collect();
        let sent = api.catalog_tools(&CatalogTools {
            loaded: &registry
                .loaded_definitions(provider, &())
                .into_iter()
                .cloned()
                .collect::<Vec<_>>(),
            search: search.definition(provider),
            deferred: &deferred,
            found: &found,
        });
        let in_context: usize = sent
            .iter()
            .filter(|tool| tool.get("defer_loading") != Some(&Value::Bool(true)))
            .map(|tool| tool.to_string().len())
            .sum();
        let all: usize = deferred.iter().map(|tool| tool.to_string().len()).sum();
        let (tokens, all_tokens) = (in_context.div_ceil(4), all.div_ceil(4));
        println!(
            "{provider}: {tokens} tokens in context per turn with deferral, {all_tokens} without"
        );
        assert!(tokens * 20 < 200_000, "{provider}: {tokens} tokens is 5 % of 200K or more");
    }
}
