//! Defining tools (seed 001): defaults, the shapes of minimal and multiple tools, and every
//! setup mistake that `build` must reject with a clear error.

use serde_json::{Value, json};
use toolwire::{DefineErrorKind, Tool, ToolContext, ToolResult};

fn noop(_args: Value, _ctx: ToolContext) -> ToolResult {
    ToolResult::ok(json!({}), "ok")
}

fn arith(name: &str, description: &str, op: fn(f64, f64) -> (&'static str, f64)) -> Tool {
    Tool::define(name)
        .description(description)
        .parameters(json!({
            "type": "object",
            "properties": {"a": {"type": "number"}, "b": {"type": "number"}},
            "required": ["a", "b"]
        }))
        .execute_sync(move |args: Value, _ctx| {
            let (a, b) = (args["a"].as_f64().unwrap_or(0.0), args["b"].as_f64().unwrap_or(0.0));
            let (key, value) = op(a, b);
            ToolResult::ok(json!({ key: value }), format!("{a} {b} -> {value}"))
        })
        .build()
        .expect("valid tool")
}

#[test]
fn seed_001_minimal_tool_gets_default_parameters() {
    let ping = Tool::define("ping")
        .description("Reply pong")
        .execute_sync(|_, _| ToolResult::ok(json!({"pong": true}), "pong"))
        .build()
        .unwrap();
    assert_eq!(
        ping.schema(),
        &json!({
            "type": "function",
            "function": {
                "name": "ping",
                "description": "Reply pong",
                "parameters": {"type": "object", "properties": {}}
            }
        })
    );
}

#[tokio::test]
async fn seed_001_minimal_tool_executes() {
    let ping = Tool::define("ping")
        .execute_sync(|_, _| ToolResult::ok(json!({"pong": true}), "pong"))
        .build()
        .unwrap();
    let result = ping.execute(json!({})).await;
    assert_eq!(result.json(), &json!({"pong": true}));
    assert_eq!(result.text(), Some("pong"));
}

#[tokio::test]
async fn seed_001_multiple_tools_for_one_request() {
    let tools = [
        arith("add", "Add two numbers", |a, b| ("sum", a + b)),
        arith("subtract", "Subtract two numbers", |a, b| ("diff", a - b)),
    ];
    let names: Vec<_> = tools.iter().map(|t| t.schema()["function"]["name"].clone()).collect();
    assert_eq!(names, [json!("add"), json!("subtract")]);
    let sum = tools[0].execute(json!({"a": 2, "b": 3})).await;
    assert_eq!(sum.json(), &json!({"sum": 5.0}));
    let diff = tools[1].execute(json!({"a": 2, "b": 3})).await;
    assert_eq!(diff.json(), &json!({"diff": -1.0}));
}

#[tokio::test]
async fn seed_001_safe_read_falls_back_to_defaults() {
    let safe_read = Tool::define("safe_read")
        .description("Reads fields with fallback")
        .execute_sync(|args: Value, _| {
            let city = args["city"].as_str().unwrap_or("Jakarta").to_owned();
            ToolResult::ok(json!({"city": city}), city)
        })
        .build()
        .unwrap();
    assert_eq!(safe_read.execute(json!({})).await.text(), Some("Jakarta"));
    assert_eq!(safe_read.execute(json!({"city": "Oslo"})).await.text(), Some("Oslo"));
}

#[tokio::test]
async fn seed_001_sync_and_async_execute_are_accepted_alike() {
    let sync_tool = Tool::define("sync_tool")
        .description("Returns immediately")
        .execute_sync(|_, _| ToolResult::ok(json!({"ok": true}), "Done"))
        .build()
        .unwrap();
    let async_tool = Tool::define("async_tool")
        .description("Awaits a Promise")
        .execute(|args: Value, _| async move {
            tokio::task::yield_now().await;
            ToolResult::ok(json!({"value": args["x"]}), "Fetched")
        })
        .build()
        .unwrap();
    let a = sync_tool.execute(json!({})).await;
    let b = async_tool.execute(json!({"x": 1})).await;
    assert_eq!((a.is_success(), a.text()), (true, Some("Done")));
    assert_eq!((b.json(), b.text()), (&json!({"value": 1}), Some("Fetched")));
}

#[test]
fn accessors_return_what_was_defined() {
    let tool = Tool::define("get_weather")
        .description("Get the weather")
        .execute_sync(noop)
        .build()
        .unwrap();
    assert_eq!(tool.name(), "get_weather");
    assert_eq!(tool.description(), Some("Get the weather"));
    assert_eq!(tool.parameters(), &json!({"type": "object", "properties": {}}));
}

#[test]
fn names_providers_reject_are_errors_that_name_the_tool() {
    let long = "x".repeat(65);
    for (name, expected) in [
        ("", "must not be empty"),
        ("get weather", "' ' at byte 3"),
        ("name.with.dots", "'.' at byte 4"),
        ("naïve", "'ï' at byte 2"),
        (long.as_str(), "65 characters is too long"),
    ] {
        let err = Tool::define(name).execute_sync(noop).build().unwrap_err();
        assert_eq!(err.kind(), DefineErrorKind::InvalidName, "{name}");
        assert!(err.is_invalid_name());
        assert_eq!(err.tool(), name);
        let message = err.to_string();
        assert!(message.starts_with(&format!("invalid tool name {name:?}")), "{message}");
        assert!(message.contains(expected), "{message} should contain {expected}");
    }
    let limit = "a".repeat(64);
    for name in ["a", "A-z_0-9", limit.as_str()] {
        assert!(Tool::define(name).execute_sync(noop).build().is_ok(), "{name}");
    }
}

#[test]
fn parameters_must_be_a_valid_object_schema() {
    for (schema, expected) in [
        (json!(null), "expected a JSON object, got null"),
        (json!([]), "expected a JSON object, got an array"),
        (json!("object"), "expected a JSON object, got a string"),
        (json!({"properties": {}}), "/type: missing"),
        (json!({"type": "string"}), "/type: expected \"object\", got \"string\""),
        (json!({"type": "object", "properties": {"n": {"type": "nope"}}}), "/properties/n/type"),
        (json!({"type": "object", "required": "n"}), "/required"),
        (json!({"type": "object", "properties": {"x": {"$ref": "#/$defs/missing"}}}), "missing"),
    ] {
        let err =
            Tool::define("t").parameters(schema.clone()).execute_sync(noop).build().unwrap_err();
        assert_eq!(err.kind(), DefineErrorKind::InvalidParameters, "{schema}");
        assert!(err.is_invalid_parameters());
        let message = err.to_string();
        assert!(message.starts_with("invalid parameters for tool \"t\": "), "{message}");
        assert!(message.contains(expected), "{message} should contain {expected}");
    }
}

#[test]
fn input_examples_must_match_the_parameters() {
    let params =
        json!({"type": "object", "properties": {"n": {"type": "number"}}, "required": ["n"]});
    let err = Tool::define("t")
        .parameters(params.clone())
        .input_examples(vec![json!({"n": 1}), json!({"n": "one"})])
        .execute_sync(noop)
        .build()
        .unwrap_err();
    assert_eq!(err.kind(), DefineErrorKind::InvalidExample);
    assert!(err.to_string().contains("example 1: /n:"), "{err}");
    let ok = Tool::define("t").parameters(params).input_examples(vec![json!({"n": 1})]);
    assert!(ok.execute_sync(noop).build().is_ok());
}

#[test]
fn a_tool_without_a_handler_is_an_error() {
    let err = Tool::define("lonely").build().unwrap_err();
    assert_eq!(err.kind(), DefineErrorKind::MissingHandler);
    assert_eq!(
        err.to_string(),
        "tool \"lonely\" has no handler: call execute or execute_sync before build"
    );
}

#[test]
fn the_last_handler_set_wins() {
    let tool = Tool::define("t")
        .execute(|_, _| async { ToolResult::failure("async") })
        .execute_sync(|_, _| ToolResult::ok(json!({}), "sync"));
    let tool = tool.build().unwrap();
    let result = tokio::runtime::Builder::new_current_thread()
        .build()
        .unwrap()
        .block_on(async { tool.execute(json!({})).await });
    assert_eq!(result.text(), Some("sync"));
}
