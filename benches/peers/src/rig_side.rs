//! The workloads on rig-core 0.44.
//!
//! rig 0.44 dropped `ToolSet`: a tool is a `DynamicTool` (a definition and an erased handler),
//! and whoever drives the model keeps the handlers by name and serves each call inline, which
//! is what this module does. rig parses the arguments into JSON but never checks them
//! against the schema, and has no way to end a call that ignores cancellation: the caller
//! can only drop its future.

use std::collections::HashMap;
use std::sync::Arc;

use rig_core::completion::ToolDefinition;
use rig_core::effect::{EffectKind, Outcome};
use rig_core::message::ToolName;
use rig_core::serve::{ErasedHandler, serve_inline};
use rig_core::tool::{DynamicTool, ToolErrorKind, ToolExecutionError, ToolOutput, ToolResult};
use serde_json::{Value, json};
use tokio_util::sync::CancellationToken;

use crate::workload::{self, ADD, HANG, ORDER, SLEEP};

/// Tools by name, with their definitions in registration order.
#[derive(Default, Clone)]
pub struct Tools {
    definitions: Vec<ToolDefinition>,
    handlers: HashMap<ToolName, ErasedHandler>,
}

impl std::fmt::Debug for Tools {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Tools").field("len", &self.definitions.len()).finish()
    }
}

impl Tools {
    fn add(&mut self, tool: DynamicTool) {
        let (definition, handler, _) = tool.into_parts();
        self.handlers.insert(definition.name.clone(), handler);
        self.definitions.push(definition);
    }
}

fn name(name: &str) -> ToolName {
    ToolName::new(name).expect("a non-empty name")
}

fn sync_tool(
    tool: &str,
    schema: Value,
    run: impl Fn(&Value) -> Value + Send + Sync + 'static,
) -> DynamicTool {
    let run = Arc::new(run);
    DynamicTool::new(name(tool), format!("The {tool} tool."), schema, move |args| {
        let out = run(&args);
        Box::pin(async move { Ok(ToolOutput::json(out)) })
    })
}

/// The sync [`ADD`] tool, for calls of `DynamicTool::execute`.
pub fn add() -> DynamicTool {
    sync_tool(ADD, workload::add_schema(), workload::add)
}

/// Every workload's tools.
///
/// [`HANG`] tells `started` when it runs, then never finishes.
pub fn tools(started: impl Fn() + Send + Sync + 'static) -> Tools {
    let mut tools = Tools::default();
    tools.add(add());
    tools.add(sync_tool(ORDER, workload::order_schema(), workload::order_total));
    tools.add(DynamicTool::new(name(SLEEP), "Sleeps.", json!({"type": "object"}), |_| {
        Box::pin(async {
            tokio::time::sleep(workload::SLEEP_FOR).await;
            Ok(ToolOutput::text("slept"))
        })
    }));
    let started = Arc::new(started);
    tools.add(DynamicTool::new(name(HANG), "Hangs.", json!({"type": "object"}), move |_| {
        started();
        Box::pin(std::future::pending())
    }));
    tools
}

/// Calls `tool` through its own `execute`, which takes parsed arguments.
pub async fn execute(tool: &DynamicTool, args: &str) -> bool {
    let input = serde_json::from_str(args).unwrap_or(Value::Null);
    tool.execute(input).await.is_ok()
}

/// Serves a call of `name` with the model's raw `args`, as a driver does.
pub async fn call(tools: &Tools, name: &str, args: &str) -> bool {
    let Some(handler) = tools.handlers.get(name) else { return false };
    let kind = EffectKind::ToolCall { name: name.to_owned(), args: args.to_owned() };
    match serve_inline(handler, kind).await {
        Ok(Outcome::ToolResult { result }) => result.is_success(),
        _ => false,
    }
}

/// Serves `name`, raced by the caller against `cancel`, since rig has no cancellation of
/// its own. The token winning gives the failed result a user's glue would make; true when it
/// won.
pub async fn call_cancelled_by_caller(
    tools: &Tools,
    name: &str,
    cancel: CancellationToken,
) -> bool {
    let Some(handler) = tools.handlers.get(name) else { return false };
    let kind = EffectKind::ToolCall { name: name.to_owned(), args: "{}".to_owned() };
    let result = tokio::select! {
        outcome = serve_inline(handler, kind) => match outcome {
            Ok(Outcome::ToolResult { result }) => result,
            _ => return false,
        },
        () = cancel.cancelled() => {
            let error = ToolExecutionError::new(ToolErrorKind::Cancelled, "the call was cancelled");
            ToolResult::failed(error)
        }
    };
    result.is_error_kind(ToolErrorKind::Cancelled)
}

/// The OpenAI Chat Completions tool list. rig builds it only inside its private request
/// encoder, so a user writes this.
pub fn openai_tools(tools: &Tools) -> Vec<Value> {
    tools
        .definitions
        .iter()
        .map(|definition| {
            json!({"type": "function", "function": {
                "name": definition.name,
                "description": definition.description,
                "parameters": definition.parameters,
            }})
        })
        .collect()
}

/// `n` tools of the catalog of workload (e).
pub fn catalog(n: usize) -> Tools {
    let mut tools = Tools::default();
    for entry in workload::catalog(n) {
        tools.add(DynamicTool::new(name(&entry.name), entry.description, entry.schema, |_| {
            Box::pin(async { Ok(ToolOutput::text("")) })
        }));
    }
    tools
}
