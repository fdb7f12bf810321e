//! The tools the suite's MCP 2026-07-28 scenarios call (SEP-2322, SEP-2575): each asks the
//! client for input by returning a pending toolwire request of kind
//! [`INPUT_REQUESTS_KIND`], whose data is the MCP `inputRequests` it wants answered.
//! `McpServer` turns it into an `InputRequiredResult` with a sealed `requestState`, and hands
//! the client's `inputResponses` back to the handler on the retry, as its answer.

use serde_json::{Value, json};
use toolwire::{DefineError, Request, Tool, ToolContext, ToolResult};
use toolwire_mcp::server::INPUT_REQUESTS_KIND;

/// Every tool of the 2026-07-28 scenarios.
pub(crate) fn all() -> Result<Vec<Tool>, DefineError> {
    Ok(vec![
        asking("test_input_required_result_elicitation", name_form("user_name"), |r| {
            format!("Hello, {}!", text_at(r, "/user_name/content/name"))
        })?,
        asking("test_input_required_result_sampling", capital(), |r| {
            format!("The model said: {}", text_at(r, "/capital_question/content/text"))
        })?,
        asking("test_input_required_result_list_roots", roots("client_roots"), |r| {
            format!("Roots: {}", roots_named(r))
        })?,
        asking("test_input_required_result_request_state", confirm(), |r| {
            format!(
                "state-ok: confirmed={}",
                r.pointer("/confirm/content/ok").unwrap_or(&Value::Null)
            )
        })?,
        asking("test_input_required_result_multiple_inputs", multiple(), |r| {
            format!(
                "name={}, greeting={}, roots={}",
                text_at(r, "/user_name/content/name"),
                text_at(r, "/greeting/content/text"),
                roots_named(r)
            )
        })?,
        asking("test_input_required_result_tampered_state", name_form("user_name"), |r| {
            format!("Hello, {}!", text_at(r, "/user_name/content/name"))
        })?,
        asking("test_input_required_result_capabilities", by_capability(), |r| {
            format!("answered: {}", keys(r))
        })?,
        asking("test_missing_capability", sampling_only(), |r| {
            format!("The model said: {}", text_at(r, "/needs_sampling/content/text"))
        })?,
        asking("test_streaming_elicitation", name_form("user_name"), |r| {
            format!("Hello, {}!", text_at(r, "/user_name/content/name"))
        })?,
        multi_round()?,
        logging()?,
    ])
}

/// A tool with no arguments that asks for `inputs` and, answered, says `done` of the
/// responses.
fn asking(name: &str, inputs: Value, done: fn(&Value) -> String) -> Result<Tool, DefineError> {
    Tool::define(name)
        .description("Ask the client for input, then report its answers")
        .asks_for_input(true)
        .execute_sync(move |_: Value, ctx: ToolContext| match ctx.answer() {
            Some(answer) if answer.ok => ToolResult::ok(answer.data.clone(), done(&answer.data)),
            Some(_) => ToolResult::failure("the client declined"),
            None => ask(inputs.clone()),
        })
        .build()
}

/// Asks for `step1`, then for `step2`, then completes: three rounds, each with a new state.
fn multi_round() -> Result<Tool, DefineError> {
    Tool::define("test_input_required_result_multi_round")
        .description("Ask two questions, one round each")
        .asks_for_input(true)
        .execute_sync(|_: Value, ctx: ToolContext| {
            let data = ctx.answer().filter(|answer| answer.ok).map(|answer| &answer.data);
            match data {
                Some(r) if r.get("step2").is_some() => ToolResult::ok(
                    r.clone(),
                    format!("Your favorite color is {}", text_at(r, "/step2/content/color")),
                ),
                Some(r) if r.get("step1").is_some() => ask(json!({"step2": elicit(
                    "Step 2: What is your favorite color?",
                    json!({"color": {"type": "string"}}),
                    "color",
                )})),
                _ => ask(json!({"step1": elicit(
                    "Step 1: What is your name?",
                    json!({"name": {"type": "string"}}),
                    "name",
                )})),
            }
        })
        .build()
}

/// Logs at info while it runs; a 2026-07-28 request that set no `logLevel` hears none of it.
fn logging() -> Result<Tool, DefineError> {
    Tool::define("test_logging_tool")
        .description("Send a log message, then answer")
        .execute_sync(|_: Value, ctx: ToolContext| {
            ctx.emit(json!({"level": "info", "data": "test_logging_tool ran"}));
            ToolResult::ok(Value::Null, "logged")
        })
        .build()
}

fn ask(inputs: Value) -> ToolResult {
    ToolResult::pending(Request::new(INPUT_REQUESTS_KIND, "input for the tool").data(inputs))
}

fn elicit(message: &str, properties: Value, required: &str) -> Value {
    json!({"method": "elicitation/create", "params": {
        "message": message,
        "requestedSchema": {"type": "object", "properties": properties, "required": [required]}
    }})
}

fn sample(text: &str, max_tokens: u32) -> Value {
    json!({"method": "sampling/createMessage", "params": {
        "messages": [{"role": "user", "content": {"type": "text", "text": text}}],
        "maxTokens": max_tokens
    }})
}

fn name_form(key: &str) -> Value {
    json!({key: elicit("What is your name?", json!({"name": {"type": "string"}}), "name")})
}

fn capital() -> Value {
    json!({"capital_question": sample("What is the capital of France?", 100)})
}

fn roots(key: &str) -> Value {
    json!({key: {"method": "roots/list", "params": {}}})
}

fn confirm() -> Value {
    json!({"confirm": elicit("Please confirm", json!({"ok": {"type": "boolean"}}), "ok")})
}

fn multiple() -> Value {
    let mut inputs = name_form("user_name");
    inputs["greeting"] = sample("Generate a greeting", 50);
    inputs["client_roots"] = roots("client_roots")["client_roots"].clone();
    inputs
}

/// An elicitation and a sampling request: the server keeps those the client can answer.
fn by_capability() -> Value {
    let mut inputs = name_form("user_name");
    inputs["capital_question"] = sample("What is the capital of France?", 100);
    inputs
}

fn sampling_only() -> Value {
    json!({"needs_sampling": sample("Say hello", 20)})
}

fn text_at<'a>(responses: &'a Value, pointer: &str) -> &'a str {
    responses.pointer(pointer).and_then(Value::as_str).unwrap_or("(none)")
}

fn roots_named(responses: &Value) -> String {
    let roots = responses.pointer("/client_roots/roots").and_then(Value::as_array);
    let uris: Vec<&str> = roots
        .into_iter()
        .flatten()
        .filter_map(|root| root.get("uri").and_then(Value::as_str))
        .collect();
    uris.join(", ")
}

fn keys(responses: &Value) -> String {
    let keys: Vec<&str> =
        responses.as_object().into_iter().flatten().map(|(key, _)| key.as_str()).collect();
    keys.join(", ")
}
