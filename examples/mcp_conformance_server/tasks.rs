//! The tools the suite's Tasks-extension scenarios call (SEP-2663): a sync tool, and tools
//! whose calls may (`Optional`) or must (`Required`) become tasks, that take a while, fail,
//! panic, or ask for input on the way.

use std::time::Duration;

use serde_json::{Value, json};
use toolwire::{DefineError, Request, TaskSupport, Tool, ToolContext, ToolResult};
use toolwire_mcp::server::INPUT_REQUESTS_KIND;

/// Every tool of the tasks scenarios.
pub(crate) fn all() -> Result<Vec<Tool>, DefineError> {
    Ok(vec![
        greet()?,
        slow_compute()?,
        failing_job()?,
        protocol_error_job()?,
        confirm_delete()?,
        multi_input()?,
        with_task()?,
    ])
}

/// Sync only: `Hello, {name}!`.
fn greet() -> Result<Tool, DefineError> {
    Tool::define("greet")
        .description("Greet someone by name")
        .execute_sync(|args: Value, _| {
            let name = args.get("name").and_then(Value::as_str).unwrap_or("World");
            ToolResult::ok(Value::Null, format!("Hello, {name}!"))
        })
        .build()
}

/// Sleeps `seconds`, then reports `label`; a task when it takes long enough.
fn slow_compute() -> Result<Tool, DefineError> {
    Tool::define("slow_compute")
        .description("Wait some seconds, then answer")
        .task_support(TaskSupport::Optional)
        .idempotent(true)
        .execute(|args: Value, _ctx: ToolContext| async move {
            let seconds = args.get("seconds").and_then(Value::as_f64).unwrap_or(0.0);
            let label = args.get("label").and_then(Value::as_str).unwrap_or("compute").to_owned();
            tokio::time::sleep(Duration::from_secs_f64(seconds.clamp(0.0, 600.0))).await;
            ToolResult::ok(json!({"label": label}), format!("{label}: done after {seconds}s"))
        })
        .build()
}

/// Always a task, which ends in a tool error after a second.
fn failing_job() -> Result<Tool, DefineError> {
    Tool::define("failing_job")
        .description("Fail after a second")
        .task_support(TaskSupport::Required)
        .execute(|_: Value, _ctx: ToolContext| async move {
            tokio::time::sleep(Duration::from_secs(1)).await;
            ToolResult::failure("the job failed, as it always does")
        })
        .build()
}

/// Always a task, whose handler panics: a protocol error, so the task fails.
fn protocol_error_job() -> Result<Tool, DefineError> {
    Tool::define("protocol_error_job")
        .description("Panic after a moment")
        .task_support(TaskSupport::Required)
        .execute(|_: Value, _ctx: ToolContext| async move {
            tokio::time::sleep(Duration::from_millis(300)).await;
            explode()
        })
        .build()
}

/// Works a moment, then asks to confirm deleting `filename`; answered, reports it.
fn confirm_delete() -> Result<Tool, DefineError> {
    Tool::define("confirm_delete")
        .asks_for_input(true)
        .description("Ask to confirm, then delete a file (pretend)")
        .task_support(TaskSupport::Optional)
        .execute(|args: Value, ctx: ToolContext| async move {
            let filename =
                args.get("filename").and_then(Value::as_str).unwrap_or("file").to_owned();
            match ctx.answer() {
                Some(answer) if answer.ok => {
                    ToolResult::ok(answer.data.clone(), format!("deleted {filename}"))
                }
                Some(_) => ToolResult::failure(format!("kept {filename}: not confirmed")),
                None => {
                    tokio::time::sleep(Duration::from_millis(300)).await;
                    let schema = json!({"type": "object", "properties": {
                        "confirm": {"type": "boolean", "description": "Delete it?"}
                    }, "required": ["confirm"]});
                    ToolResult::pending(
                        Request::new("confirm", format!("Delete {filename}?")).data(schema),
                    )
                }
            }
        })
        .build()
}

/// Works a moment, then asks two questions at once.
fn multi_input() -> Result<Tool, DefineError> {
    Tool::define("multi_input")
        .asks_for_input(true)
        .description("Ask two questions at once")
        .task_support(TaskSupport::Optional)
        .execute(|_: Value, ctx: ToolContext| async move {
            if let Some(answer) = ctx.answer() {
                return ToolResult::ok(answer.data.clone(), "both questions answered");
            }
            tokio::time::sleep(Duration::from_millis(300)).await;
            let form = json!({"type": "object", "properties": {
                "name": {"type": "string"}, "confirm": {"type": "boolean"}
            }});
            let ask = |message: &str| {
                json!({"method": "elicitation/create", "params": {
                    "message": message, "requestedSchema": form.clone()
                }})
            };
            let inputs = json!({"first": ask("First question"), "second": ask("Second question")});
            ToolResult::pending(Request::new(INPUT_REQUESTS_KIND, "two questions").data(inputs))
        })
        .build()
}

/// Asks for `user_name` at once (SEP-2322); answered, works past the grace period, so the
/// answering retry becomes a task, whose result greets the name.
fn with_task() -> Result<Tool, DefineError> {
    Tool::define("test_tool_with_task")
        .asks_for_input(true)
        .description("Ask for a name, then greet it from a task")
        .task_support(TaskSupport::Required)
        .execute(|_: Value, ctx: ToolContext| async move {
            let Some(answer) = ctx.answer().filter(|answer| answer.ok) else {
                let inputs = json!({"user_name": {"method": "elicitation/create", "params": {
                    "message": "What is your name?",
                    "requestedSchema": {"type": "object",
                        "properties": {"name": {"type": "string"}}, "required": ["name"]}
                }}});
                return ToolResult::pending(
                    Request::new(INPUT_REQUESTS_KIND, "a name").data(inputs),
                );
            };
            let name = answer
                .data
                .pointer("/user_name/content/name")
                .and_then(Value::as_str)
                .unwrap_or("stranger")
                .to_owned();
            tokio::time::sleep(Duration::from_millis(500)).await;
            ToolResult::ok(answer.data.clone(), format!("Hello, {name}!"))
        })
        .build()
}

#[expect(clippy::panic, reason = "the fixture's whole point is a handler that panics")]
fn explode() -> ToolResult {
    panic!("protocol_error_job panicked on purpose")
}
