//! The workloads on toolwire.

use std::future::IntoFuture;

use serde_json::Value;
use toolwire::{AbortSignal, Registry, Tool, ToolCall, ToolContext, ToolResult};

use crate::workload::{self, ADD, HANG, ORDER, SLEEP};

/// The name of the unvalidated copy of [`ADD`].
pub const ADD_UNCHECKED: &str = "add_unchecked";
/// The name of the unvalidated copy of [`ORDER`].
pub const ORDER_UNCHECKED: &str = "create_order_unchecked";

fn sync_tool(
    name: &str,
    schema: Value,
    validate: bool,
    run: impl Fn(&Value) -> Value + Send + Sync + 'static,
) -> Tool {
    Tool::define(name)
        .description(format!("The {name} tool."))
        .parameters(schema)
        .validate_arguments(validate)
        .execute_sync(move |args, _| ToolResult::ok(run(&args), "done"))
        .build()
        .expect("a valid tool")
}

fn add_tool(name: &str, validate: bool) -> Tool {
    sync_tool(name, workload::add_schema(), validate, workload::add)
}

fn order_tool(name: &str, validate: bool) -> Tool {
    sync_tool(name, workload::order_schema(), validate, workload::order_total)
}

/// The sync [`ADD`] tool, validated, for calls of `Tool::execute`.
pub fn add() -> Tool {
    add_tool(ADD, true)
}

/// A registry of every workload's tools, with unvalidated copies of [`ADD`] and [`ORDER`].
///
/// [`HANG`] tells `started` when it runs, then never finishes and never looks at its signal.
pub fn registry(started: impl Fn() + Send + Sync + 'static) -> Registry {
    let sleep = Tool::define(SLEEP)
        .execute(|_, _| async {
            tokio::time::sleep(workload::SLEEP_FOR).await;
            ToolResult::ok(Value::Null, "slept")
        })
        .build()
        .expect("a valid tool");
    let hang = Tool::define(HANG)
        .execute(move |_, _: ToolContext| {
            started();
            std::future::pending::<ToolResult>()
        })
        .build()
        .expect("a valid tool");
    Registry::builder()
        .register(add_tool(ADD, true))
        .register(add_tool(ADD_UNCHECKED, false))
        .register(order_tool(ORDER, true))
        .register(order_tool(ORDER_UNCHECKED, false))
        .register(sleep)
        .register(hang)
        .seal()
        .expect("unique names")
}

/// Parses `args` as a provider hands them over and runs `tool` on them.
pub async fn execute(tool: &Tool, args: &str) -> bool {
    let input = serde_json::from_str(args).unwrap_or(Value::Null);
    tool.execute(input).await.is_success()
}

/// Parses `args` and invokes the tool called `name`.
pub async fn invoke(registry: &Registry, name: &str, args: &str) -> bool {
    let input = serde_json::from_str(args).unwrap_or(Value::Null);
    registry.invoke(name, input).await.result.is_success()
}

/// Invokes `name` under `signal`; true when the result says the call was aborted.
pub async fn invoke_aborted(registry: &Registry, name: &str, signal: AbortSignal) -> bool {
    registry
        .invoke(name, Value::Object(Default::default()))
        .signal(signal)
        .await
        .result
        .is_aborted()
}

/// Dispatches `calls` at once, with no concurrency limit below their count.
pub async fn dispatch(registry: &Registry, calls: Vec<ToolCall>) -> usize {
    let count = calls.len();
    let receipts = registry.dispatch(calls).concurrency(count).into_future().await;
    receipts.iter().filter(|receipt| receipt.result.is_success()).count()
}

/// The OpenAI Chat Completions tool list of every tool in `registry`.
pub fn openai_tools(registry: &Registry) -> Vec<&Value> {
    registry.definitions(toolwire::Provider::OpenAi, &())
}

/// A registry of `n` tools of the catalog of workload (e).
pub fn catalog(n: usize) -> Registry {
    let mut builder = Registry::builder();
    for entry in workload::catalog(n) {
        let tool = Tool::define(entry.name)
            .description(entry.description)
            .parameters(entry.schema)
            .execute_sync(|_, _| ToolResult::ok(Value::Null, "done"))
            .build()
            .expect("a valid tool");
        builder = builder.register(tool);
    }
    builder.seal().expect("unique names")
}
