//! Describing tools (seed 004): each provider shape, with optional keys only when set.

use serde_json::{Value, json};
use toolwire::{Provider, Tool, ToolResult};

fn weather() -> toolwire::ToolBuilder {
    Tool::define("get_weather")
        .description("Get the current weather for a city")
        .parameters(json!({
            "type": "object",
            "properties": {"city": {"type": "string"}},
            "required": ["city"]
        }))
        .execute_sync(|_args: Value, _ctx| {
            ToolResult::ok(json!({"temp": 28, "condition": "sunny"}), "Sunny, 28C")
        })
}

fn params() -> Value {
    json!({"type": "object", "properties": {"city": {"type": "string"}}, "required": ["city"]})
}

#[tokio::test]
async fn seed_004_quick_start() {
    let weather = weather().build().unwrap();
    assert_eq!(
        weather.schema(),
        &json!({"type": "function", "function": {
            "name": "get_weather",
            "description": "Get the current weather for a city",
            "parameters": params()
        }})
    );
    let result = weather.execute(json!({"city": "Jakarta"})).await;
    assert_eq!(result.text(), Some("Sunny, 28C"));
}

#[test]
fn schema_is_the_openai_nested_shape() {
    let tool = weather().build().unwrap();
    assert_eq!(tool.schema(), tool.to_openai());
    assert_eq!(tool.definition(Provider::OpenAi), tool.to_openai());
}

#[test]
fn plain_shapes_have_no_optional_keys() {
    let tool = weather().build().unwrap();
    let name = "get_weather";
    let description = "Get the current weather for a city";
    assert_eq!(
        tool.to_flat_function(),
        &json!({"name": name, "description": description, "parameters": params()})
    );
    assert_eq!(
        tool.to_anthropic(),
        &json!({"name": name, "description": description, "input_schema": params()})
    );
    assert_eq!(
        tool.to_gemini(),
        &json!({"name": name, "description": description, "parametersJsonSchema": params()})
    );
    assert_eq!(
        tool.to_mcp(),
        &json!({"name": name, "description": description, "inputSchema": params()})
    );
}

#[test]
fn description_is_left_out_when_not_set() {
    let tool = Tool::define("bare").execute_sync(|_, _| ToolResult::failure("")).build().unwrap();
    for provider in [
        Provider::OpenAi,
        Provider::FlatFunction,
        Provider::Responses,
        Provider::Anthropic,
        Provider::Gemini,
        Provider::Mcp,
    ] {
        let shape = tool.definition(provider);
        let body = shape.get("function").unwrap_or(shape);
        assert_eq!(body["name"], "bare");
        assert!(body.get("description").is_none(), "{provider:?}: {shape}");
    }
}

#[test]
fn strict_appears_in_openai_flat_and_anthropic_only() {
    let tool = weather().strict(true).build().unwrap();
    assert_eq!(tool.to_openai()["function"]["strict"], json!(true));
    assert_eq!(tool.to_flat_function()["strict"], json!(true));
    assert_eq!(tool.to_anthropic()["strict"], json!(true));
    assert_eq!(tool.to_responses()["strict"], json!(true));
    assert_eq!(tool.to_responses()["parameters"], tool.to_flat_function()["parameters"]);
    assert!(tool.to_gemini().get("strict").is_none());
    assert!(tool.to_mcp().get("strict").is_none());
    let lax = weather().strict(false).build().unwrap();
    assert_eq!(lax.to_openai()["function"]["strict"], json!(false));
}

#[test]
fn examples_and_cache_control_appear_only_for_anthropic() {
    let tool = weather()
        .input_examples(vec![json!({"city": "Paris"})])
        .cache_control(json!({"type": "ephemeral"}))
        .build()
        .unwrap();
    assert_eq!(
        tool.to_anthropic(),
        &json!({
            "name": "get_weather",
            "description": "Get the current weather for a city",
            "input_schema": params(),
            "input_examples": [{"city": "Paris"}],
            "cache_control": {"type": "ephemeral"}
        })
    );
    for shape in [
        tool.to_openai(),
        tool.to_flat_function(),
        tool.to_responses(),
        tool.to_gemini(),
        tool.to_mcp(),
    ] {
        let text = shape.to_string();
        assert!(!text.contains("input_examples") && !text.contains("cache_control"), "{text}");
    }
}

#[test]
fn annotations_appear_in_the_mcp_shape_only_when_set() {
    let plain = Tool::define("plain").execute_sync(|_, _| ToolResult::failure("")).build().unwrap();
    assert!(plain.to_mcp().get("annotations").is_none());
    assert!(!plain.is_idempotent());
    let hinted = Tool::define("hinted")
        .title("A hinted tool")
        .read_only(true)
        .idempotent(true)
        .open_world(false)
        .execute_sync(|_, _| ToolResult::failure(""))
        .build()
        .unwrap();
    let mcp = hinted.to_mcp();
    assert_eq!(mcp["title"], "A hinted tool");
    assert_eq!(
        mcp["annotations"],
        json!({"title": "A hinted tool", "readOnlyHint": true, "idempotentHint": true, "openWorldHint": false})
    );
    assert!(hinted.is_idempotent());
    assert!(hinted.to_openai().get("annotations").is_none(), "only MCP carries hints");
}
