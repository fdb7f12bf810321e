//! The workloads on toolnexus 0.23.
//!
//! toolnexus hands a tool's arguments to its function as they came: it checks neither their
//! schema nor their types. Its `ToolContext` carries a `CancellationToken` that a tool may
//! watch; nothing races the call against it, so a tool that ignores it runs on.

use serde_json::Value;
use tokio_util::sync::CancellationToken;
use toolnexus::{Tool, ToolContext, ToolResult, Toolkit, ToolkitOptions, define_tool};

use crate::workload::{self, ADD, HANG, ORDER, SLEEP};

fn native(
    name: &str,
    schema: Value,
    run: impl Fn(&Value) -> Value + Send + Sync + 'static,
) -> Tool {
    define_tool(name, format!("The {name} tool."), Some(schema), move |args: Value, _| {
        let out = run(&args).to_string();
        async move { Ok::<_, String>(out) }
    })
}

/// The sync [`ADD`] tool, for calls of `Tool::call`.
pub fn add() -> Tool {
    native(ADD, workload::add_schema(), workload::add)
}

/// A toolkit of every workload's tools, with the built-in tools turned off.
///
/// [`HANG`] tells `started` when it runs, then never finishes and never looks at its token.
pub async fn toolkit(started: impl Fn() + Send + Sync + 'static) -> Toolkit {
    let sleep = define_tool(SLEEP, "Sleeps.", None, |_, _| async {
        tokio::time::sleep(workload::SLEEP_FOR).await;
        Ok::<_, String>("slept".to_owned())
    });
    let started = std::sync::Arc::new(started);
    let hang = define_tool(HANG, "Hangs.", None, move |_, _| {
        started();
        std::future::pending::<Result<String, String>>()
    });
    let tools =
        vec![add(), native(ORDER, workload::order_schema(), workload::order_total), sleep, hang];
    toolkit_of(tools).await
}

async fn toolkit_of(tools: Vec<Tool>) -> Toolkit {
    let options = ToolkitOptions {
        extra_tools: tools,
        builtins: Some(toolnexus::BuiltinsConfig::from_value(&serde_json::json!(false))),
        ..Default::default()
    };
    toolnexus::create_toolkit(options).await.expect("a toolkit without MCP servers")
}

fn context(cancel: CancellationToken) -> ToolContext {
    ToolContext { cancel, ..Default::default() }
}

/// Parses `args` and calls `tool` directly.
pub async fn call(tool: &Tool, args: &str) -> bool {
    let input = serde_json::from_str(args).unwrap_or(Value::Null);
    !tool.call(input, ToolContext::default()).await.is_error
}

/// Parses `args` and executes the tool called `name` through the toolkit.
pub async fn execute(toolkit: &Toolkit, name: &str, args: &str) -> bool {
    let input = serde_json::from_str(args).unwrap_or(Value::Null);
    !toolkit.execute(name, input, ToolContext::default()).await.is_error
}

/// Executes `name` with `cancel` in its context, raced by the caller against that token,
/// since the toolkit does not race it. The token winning gives the error result a user's
/// glue would make for the model; true when it won.
pub async fn execute_cancelled_by_caller(
    toolkit: &Toolkit,
    name: &str,
    cancel: CancellationToken,
) -> bool {
    let call = toolkit.execute(name, Value::Object(Default::default()), context(cancel.clone()));
    let result = tokio::select! {
        result = call => result,
        () = cancel.cancelled() => ToolResult::error("the call was cancelled"),
    };
    result.is_error && result.output == "the call was cancelled"
}

/// The OpenAI Chat Completions tool list of every tool in `toolkit`.
pub fn openai_tools(toolkit: &Toolkit) -> Vec<Value> {
    toolkit.to_openai()
}

/// A toolkit of `n` tools of the catalog of workload (e).
pub async fn catalog(n: usize) -> Toolkit {
    let tools = workload::catalog(n)
        .into_iter()
        .map(|entry| {
            define_tool(entry.name, entry.description, Some(entry.schema), |_, _| async {
                Ok::<_, String>(String::new())
            })
        })
        .collect();
    toolkit_of(tools).await
}
