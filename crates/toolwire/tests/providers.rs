//! Provider round trips on golden fixtures: a model's reply is parsed, dispatched and rendered
//! back, and compared with `fixtures/<provider>/results.json`. Set `TOOLWIRE_BLESS=1` to
//! rewrite the expected files after a deliberate change, then review the diff.

use std::path::PathBuf;

use serde_json::{Value, json};
use toolwire::provider::{self, ParseError, anthropic, gemini, openai, repair, responses};
use toolwire::{FailureKind, Provider, Receipt, Registry, Tool, ToolCall, ToolResult};

fn registry() -> Registry {
    let weather = Tool::define("get_weather")
        .description("Current weather for a city")
        .parameters(json!({
            "type": "object",
            "properties": {"city": {"type": "string"}},
            "required": ["city"]
        }))
        .execute_sync(|args: Value, _| {
            let city = args["city"].as_str().unwrap_or_default().to_owned();
            ToolResult::ok(json!({"city": city, "temp": 21}), format!("21 degrees in {city}"))
        })
        .build()
        .unwrap();
    Registry::builder().register(weather).seal().unwrap()
}

fn fixture(provider: &str, file: &str) -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures").join(provider).join(file)
}

fn read(provider: &str, file: &str) -> Value {
    let text = std::fs::read_to_string(fixture(provider, file)).unwrap();
    serde_json::from_str(&text).unwrap()
}

/// Compares `rendered` with the golden file, or rewrites it when blessing.
fn check(provider: &str, rendered: &Value) {
    if std::env::var_os("TOOLWIRE_BLESS").is_some() {
        let text = serde_json::to_string_pretty(rendered).unwrap() + "\n";
        std::fs::write(fixture(provider, "results.json"), text).unwrap();
    }
    assert_eq!(rendered, &read(provider, "results.json"), "{provider}: rendered results differ");
}

async fn run(calls: &[ToolCall]) -> Vec<Receipt> {
    repair(calls, registry().dispatch(calls.to_vec()).await)
}

#[tokio::test]
async fn openai_chat_round_trip() {
    let calls = openai::parse_calls(&read("openai", "reply.json")).unwrap();
    let ids: Vec<_> = calls.iter().map(|c| c.call_id.as_str()).collect();
    assert_eq!(ids, ["call_abc", "call_def", "call_ghi", "call_jkl"]);
    assert!(calls[1].malformed.as_deref().unwrap().starts_with("the arguments are not valid JSON"));
    let receipts = run(&calls).await;
    let kinds: Vec<_> = receipts.iter().map(|r| r.result.failure_kind()).collect();
    assert_eq!(
        kinds,
        [
            None,
            Some(FailureKind::InvalidInput),
            Some(FailureKind::UnknownTool),
            Some(FailureKind::InvalidInput)
        ]
    );
    check("openai", &json!(openai::render_results(&receipts)));
}

#[tokio::test]
async fn openai_responses_round_trip() {
    let calls = responses::parse_calls(&read("responses", "reply.json")).unwrap();
    assert_eq!(calls.len(), 2, "reasoning and message items are skipped");
    let receipts = run(&calls).await;
    check("responses", &json!(responses::render_results(&receipts)));
}

#[tokio::test]
async fn anthropic_round_trip() {
    let calls = anthropic::parse_calls(&read("anthropic", "reply.json")).unwrap();
    assert_eq!(calls[1].arguments, json!({"city": "Rome"}), "input given as JSON text is read");
    assert!(calls[2].malformed.as_deref().unwrap().contains("got an array"));
    let receipts = run(&calls).await;
    let rendered = anthropic::render_results(&receipts);
    assert_eq!(rendered["role"], "user");
    check("anthropic", &rendered);
}

#[tokio::test]
async fn gemini_round_trip_sending_only_geminis_own_ids_back() {
    let calls = gemini::parse_calls(&read("gemini", "reply.json")).unwrap();
    let ids: Vec<_> = calls.iter().map(|c| c.call_id.as_str()).collect();
    assert_eq!(ids[1], "fc-7");
    assert!(ids[0].starts_with("gemini-call-") && ids[2].starts_with("gemini-call-"), "{ids:?}");
    assert_ne!(ids[0], ids[2]);
    let receipts = run(&calls).await;
    let rendered = gemini::render_results(&receipts);
    assert!(rendered["parts"][0]["functionResponse"].get("id").is_none());
    assert_eq!(rendered["parts"][1]["functionResponse"]["id"], "fc-7");
    assert!(rendered["parts"][2]["functionResponse"]["response"].get("error").is_some());
    check("gemini", &rendered);
}

#[tokio::test]
async fn definitions_then_calls_then_results_for_every_provider() {
    let registry = registry();
    for provider in [
        Provider::OpenAi,
        Provider::FlatFunction,
        Provider::Anthropic,
        Provider::Gemini,
        Provider::Mcp,
    ] {
        let definitions = registry.definitions(provider, &());
        let text = serde_json::to_string(&definitions).unwrap();
        assert!(text.contains("get_weather"), "{provider:?}: {text}");
    }
}

#[test]
fn replies_without_calls_give_none() {
    let empty_message = json!({"role": "assistant", "content": "Hello!"});
    assert!(openai::parse_calls(&empty_message).unwrap().is_empty());
    assert!(
        openai::parse_calls(&json!({"role": "assistant", "tool_calls": null})).unwrap().is_empty()
    );
    assert!(responses::parse_calls(&json!({"output": []})).unwrap().is_empty());
    assert!(responses::parse_calls(&json!([])).unwrap().is_empty());
    assert!(
        anthropic::parse_calls(&json!({"content": [{"type": "text", "text": "hi"}]}))
            .unwrap()
            .is_empty()
    );
    assert!(gemini::parse_calls(&json!({"parts": [{"text": "hi"}]})).unwrap().is_empty());
}

#[test]
fn unreadable_replies_are_errors_naming_where() {
    let cases: Vec<(Result<Vec<ToolCall>, ParseError>, &str)> = vec![
        (
            openai::parse_calls(&json!("text")),
            "invalid OpenAI response: (root): expected an assistant message object",
        ),
        (
            openai::parse_calls(&json!({"choices": []})),
            "invalid OpenAI response: /choices/0/message: expected an assistant message object",
        ),
        (
            openai::parse_calls(
                &json!({"tool_calls": [{"type": "function", "function": {"name": "x"}}]}),
            ),
            "invalid OpenAI response: /tool_calls/0/id: missing",
        ),
        (
            openai::parse_calls(&json!({"tool_calls": [{"id": 7, "function": {"name": "x"}}]})),
            "invalid OpenAI response: /tool_calls/0/id: expected a string, got a number",
        ),
        (
            openai::parse_calls(&json!({"tool_calls": {}})),
            "invalid OpenAI response: /tool_calls: expected an array, got an object",
        ),
        (
            responses::parse_calls(&json!({"output": [{"type": "function_call", "name": "x"}]})),
            "invalid OpenAI Responses response: /output/0/call_id: missing",
        ),
        (
            anthropic::parse_calls(&json!(null)),
            "invalid Anthropic response: (root): expected a message or a list of content blocks",
        ),
        (
            anthropic::parse_calls(&json!([{"type": "tool_use", "id": "t", "input": {}}])),
            "invalid Anthropic response: /0/name: missing",
        ),
        (
            gemini::parse_calls(
                &json!({"candidates": [{"content": {"parts": [{"functionCall": {"args": {}}}]}}]}),
            ),
            "invalid Gemini response: /candidates/0/content/parts/0/functionCall/name: missing",
        ),
    ];
    for (result, expected) in cases {
        let error = result.unwrap_err();
        assert_eq!(error.to_string(), expected);
    }
}

#[test]
fn arguments_in_every_form_are_read_or_refused_with_a_reason() {
    let call = |arguments: Value| {
        let message =
            json!({"tool_calls": [{"id": "c", "function": {"name": "t", "arguments": arguments}}]});
        openai::parse_calls(&message).unwrap().remove(0)
    };
    assert_eq!(call(json!("{\"a\":1}")).arguments, json!({"a": 1}));
    assert_eq!(
        call(json!({"a": 1})).arguments,
        json!({"a": 1}),
        "an object where text belongs is taken"
    );
    assert_eq!(call(json!("")).arguments, Value::Null, "empty text counts as no arguments");
    assert_eq!(call(Value::Null).arguments, Value::Null);
    assert!(call(json!(5)).malformed.unwrap().contains("got a number"));
    assert!(
        call(json!("{oops"))
            .malformed
            .unwrap()
            .starts_with("the arguments are not valid JSON: key must be a string")
    );
}

#[tokio::test]
async fn repair_fills_missing_results_and_drops_strays() {
    let calls = vec![
        ToolCall::new("a", "get_weather", json!({"city": "Oslo"})),
        ToolCall::new("b", "get_weather", json!({"city": "Rome"})),
        ToolCall::new("c", "get_weather", json!({"city": "Lima"})),
    ];
    // Only the first and last ran, plus a stray receipt for a call not in this turn.
    let mut receipts = registry().dispatch(vec![calls[2].clone(), calls[0].clone()]).await;
    receipts.extend(
        registry().dispatch(vec![ToolCall::new("zzz", "get_weather", json!({"city": "X"}))]).await,
    );
    let repaired = repair(&calls, receipts);
    let ids: Vec<_> = repaired.iter().map(|r| r.call_id.as_deref().unwrap()).collect();
    assert_eq!(ids, ["a", "b", "c"]);
    assert!(repaired[0].result.is_success() && repaired[2].result.is_success());
    assert_eq!(repaired[1].result.failure_kind(), Some(FailureKind::Aborted));
    assert_eq!(repaired[1].result.text(), Some(provider::MISSING_RESULT));
    let rendered = anthropic::render_results(&repaired);
    assert_eq!(rendered["content"].as_array().unwrap().len(), 3, "N calls, N results");
}
