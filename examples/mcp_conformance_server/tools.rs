//! The suite's test tools, as toolwire tools.

use std::time::Duration;

#[expect(
    deprecated,
    reason = "MCP sampling is deprecated by SEP-2577 but the suite still tests it"
)]
use rmcp::model::{CreateMessageRequestParams, CreateMessageResult};
use serde_json::{Value, json};
use toolwire::media::Part;
use toolwire::{Answer, DefineError, Request, Tool, ToolContext, ToolResult};
use toolwire_mcp::server::peer;

use super::media::{PNG, WAV};

/// Every tool the server offers.
pub(crate) fn all() -> Result<Vec<Tool>, DefineError> {
    Ok(vec![
        simple_text()?,
        content("test_image_content", "Return an image", vec![image()])?,
        content("test_audio_content", "Return an audio clip", vec![audio()])?,
        content("test_embedded_resource", "Return an embedded resource", vec![embedded()])?,
        content(
            "test_multiple_content_types",
            "Return text, an image and a resource",
            vec![json!({"type": "text", "text": "Multiple content types test:"}), image(), mixed()],
        )?,
        logging()?,
        failing()?,
        progress()?,
        sampling()?,
        elicitation()?,
        elicit_tool(
            "test_elicitation_sep1034_defaults",
            "Ask for a form whose fields have defaults",
            defaults_form(),
        )?,
        elicit_tool(
            "test_elicitation_sep1330_enums",
            "Ask for a form with every kind of enum",
            enums_form(),
        )?,
        json_schema_2020_12()?,
        reconnection()?,
    ])
}

fn simple_text() -> Result<Tool, DefineError> {
    Tool::define("test_simple_text")
        .description("Return a simple text")
        .execute_sync(|_: Value, _| {
            ToolResult::ok(Value::Null, "This is a simple text response for testing.")
        })
        .build()
}

/// A tool with no arguments whose result is `blocks` (MCP content blocks as JSON), as parts.
fn content(name: &str, description: &str, blocks: Vec<Value>) -> Result<Tool, DefineError> {
    let parts = blocks
        .into_iter()
        .map(serde_json::from_value::<Part>)
        .collect::<Result<Vec<_>, _>>()
        .unwrap_or_else(|error| vec![Part::text(format!("a block is not valid: {error}"))]);
    Tool::define(name)
        .description(description)
        .execute_sync(move |_: Value, _| ToolResult::from_parts(parts.clone()))
        .build()
}

fn image() -> Value {
    json!({"type": "image", "data": PNG, "mimeType": "image/png"})
}

fn audio() -> Value {
    json!({"type": "audio", "data": WAV, "mimeType": "audio/wav"})
}

fn embedded() -> Value {
    json!({"type": "resource", "resource": {
        "uri": "test://embedded-resource",
        "mimeType": "text/plain",
        "text": "This is an embedded resource content."
    }})
}

fn mixed() -> Value {
    json!({"type": "resource", "resource": {
        "uri": "test://mixed-content-resource",
        "mimeType": "application/json",
        "text": json!({"test": "data", "value": 123}).to_string()
    }})
}

fn logging() -> Result<Tool, DefineError> {
    Tool::define("test_tool_with_logging")
        .description("Send three log messages while it runs")
        .execute(|_: Value, ctx: ToolContext| async move {
            let steps =
                ["Tool execution started", "Tool processing data", "Tool execution completed"];
            for (i, step) in steps.into_iter().enumerate() {
                if i > 0 {
                    tokio::time::sleep(Duration::from_millis(50)).await;
                }
                ctx.emit(json!({"level": "info", "data": step}));
            }
            ToolResult::ok(Value::Null, "Tool with logging executed successfully")
        })
        .build()
}

fn failing() -> Result<Tool, DefineError> {
    Tool::define("test_error_handling")
        .description("Always fail")
        .execute_sync(|_: Value, _| {
            ToolResult::failure("This tool intentionally returns an error for testing")
        })
        .build()
}

fn progress() -> Result<Tool, DefineError> {
    Tool::define("test_tool_with_progress")
        .description("Report progress 0, 50 and 100 of 100")
        .execute(|_: Value, ctx: ToolContext| async move {
            for done in [0, 50, 100] {
                if done > 0 {
                    tokio::time::sleep(Duration::from_millis(50)).await;
                }
                ctx.progress(done, 100, "");
            }
            ToolResult::ok(Value::Null, "Tool with progress executed successfully")
        })
        .build()
}

fn sampling() -> Result<Tool, DefineError> {
    Tool::define("test_sampling")
        .description("Ask the client's model to answer a prompt")
        .parameters(json!({
            "type": "object",
            "properties": {"prompt": {"type": "string", "description": "The prompt for the model"}},
            "required": ["prompt"]
        }))
        .execute(|args: Value, _| async move {
            let prompt = args.get("prompt").and_then(Value::as_str).unwrap_or_default().to_owned();
            match sample(&prompt).await {
                Ok(reply) => ToolResult::ok(Value::Null, format!("LLM response: {reply}")),
                Err(why) => ToolResult::failure(why),
            }
        })
        .build()
}

/// Sends `sampling/createMessage` with `prompt` to the session's client; its reply's text.
#[expect(
    deprecated,
    reason = "MCP sampling is deprecated by SEP-2577 but the suite still tests it"
)]
async fn sample(prompt: &str) -> Result<String, String> {
    let peer = peer().ok_or("this tool must be called over MCP")?;
    // rmcp sends the request even to a client that never declared sampling; ask only those
    // that did, or the call would wait for an answer that never comes.
    let declared = peer.peer_info().is_some_and(|info| info.capabilities.sampling.is_some());
    if !declared {
        return Err("the client does not offer sampling".into());
    }
    let params: CreateMessageRequestParams = serde_json::from_value(json!({
        "messages": [{"role": "user", "content": {"type": "text", "text": prompt}}],
        "maxTokens": 100
    }))
    .map_err(|e| format!("the sampling request could not be built: {e}"))?;
    let result: CreateMessageResult =
        peer.create_message(params).await.map_err(|e| format!("sampling failed: {e}"))?;
    let reply =
        serde_json::to_value(&result).map_err(|e| format!("the reply is unreadable: {e}"))?;
    Ok(reply.pointer("/content/text").and_then(Value::as_str).unwrap_or_default().to_owned())
}

fn elicitation() -> Result<Tool, DefineError> {
    Tool::define("test_elicitation")
        .asks_for_input(true)
        .description("Ask the user for a username and an email address")
        .parameters(json!({
            "type": "object",
            "properties": {"message": {"type": "string", "description": "The message to show the user"}},
            "required": ["message"]
        }))
        .execute_sync(|args: Value, ctx: ToolContext| {
            let form = json!({
                "type": "object",
                "properties": {
                    "username": {"type": "string", "description": "User's response"},
                    "email": {"type": "string", "description": "User's email address"}
                },
                "required": ["username", "email"]
            });
            match ctx.answer() {
                None => {
                    let message = args.get("message").and_then(Value::as_str).unwrap_or("Please answer");
                    ToolResult::pending(Request::new("input", message).data(form))
                }
                Some(answer) => ToolResult::ok(Value::Null, format!("User response: {}", described(answer))),
            }
        })
        .build()
}

/// A tool with no arguments that asks the user to fill in `form`, and reports the answer.
fn elicit_tool(name: &str, description: &str, form: Value) -> Result<Tool, DefineError> {
    Tool::define(name)
        .asks_for_input(true)
        .description(description)
        .execute_sync(move |_: Value, ctx: ToolContext| match ctx.answer() {
            None => ToolResult::pending(
                Request::new("input", "Please review and update the form fields")
                    .data(form.clone()),
            ),
            Some(answer) => {
                ToolResult::ok(Value::Null, format!("Elicitation completed: {}", described(answer)))
            }
        })
        .build()
}

/// `action=<accept|decline>, content=<the form>` for an answer.
fn described(answer: &Answer) -> String {
    if answer.ok {
        return format!("action=accept, content={}", answer.data);
    }
    format!("action=decline, reason={}", answer.reason.as_deref().unwrap_or("none given"))
}

/// SEP-1034: a default for every primitive type.
fn defaults_form() -> Value {
    json!({
        "type": "object",
        "properties": {
            "name": {"type": "string", "description": "User name", "default": "John Doe"},
            "age": {"type": "integer", "description": "User age", "default": 30},
            "score": {"type": "number", "description": "User score", "default": 95.5},
            "status": {
                "type": "string",
                "description": "User status",
                "enum": ["active", "inactive", "pending"],
                "default": "active"
            },
            "verified": {"type": "boolean", "description": "Verification status", "default": true}
        }
    })
}

/// SEP-1330: the five shapes of enum.
fn enums_form() -> Value {
    let titled = |prefix: &str, names: [&str; 3]| -> Vec<Value> {
        names
            .iter()
            .enumerate()
            .map(|(i, title)| json!({"const": format!("{prefix}{}", i + 1), "title": title}))
            .collect()
    };
    json!({
        "type": "object",
        "properties": {
            "untitledSingle": {"type": "string", "enum": ["option1", "option2", "option3"]},
            "titledSingle": {
                "type": "string",
                "oneOf": titled("value", ["First Option", "Second Option", "Third Option"])
            },
            "legacyEnum": {
                "type": "string",
                "enum": ["opt1", "opt2", "opt3"],
                "enumNames": ["Option One", "Option Two", "Option Three"]
            },
            "untitledMulti": {
                "type": "array",
                "items": {"type": "string", "enum": ["option1", "option2", "option3"]}
            },
            "titledMulti": {
                "type": "array",
                "items": {"anyOf": titled("value", ["First Choice", "Second Choice", "Third Choice"])}
            }
        }
    })
}

/// SEP-1613: an input schema in the 2020-12 dialect, with `$defs` and `additionalProperties`.
fn json_schema_2020_12() -> Result<Tool, DefineError> {
    Tool::define("json_schema_2020_12_tool")
        .description("Tool with JSON Schema 2020-12 features")
        .parameters(json!({
            "$schema": "https://json-schema.org/draft/2020-12/schema",
            "type": "object",
            "$defs": {
                "address": {
                    "type": "object",
                    "properties": {"street": {"type": "string"}, "city": {"type": "string"}}
                }
            },
            "properties": {"name": {"type": "string"}, "address": {"$ref": "#/$defs/address"}},
            "additionalProperties": false
        }))
        .execute_sync(|args: Value, _| ToolResult::ok(args, "received"))
        .build()
}

/// SEP-1699's `test_reconnection`. The reference server closes the call's SSE stream and lets
/// the client resume it with `Last-Event-ID`; rmcp 3.11 gives a handler no way to reach its
/// request's stream (`LocalSessionHandle::close_sse_stream` wants rmcp's private HTTP request
/// id), so this one answers on the open stream, which the suite accepts.
fn reconnection() -> Result<Tool, DefineError> {
    Tool::define("test_reconnection")
        .description("Answer a call whose SSE stream a client may resume (SEP-1699)")
        .execute(|_: Value, _| async move {
            tokio::time::sleep(Duration::from_millis(100)).await;
            ToolResult::ok(Value::Null, "Reconnection test completed")
        })
        .build()
}
