//! The workloads on rmcp 3.x, in process: `ToolRouter::call`, without a transport.
//!
//! A call needs a `RequestContext`, which needs a `Peer`, and rmcp makes a peer only for a
//! running service; [`Router::new`] starts one on a transport that never receives anything,
//! once, and every call shares its peer. rmcp passes a call's arguments to the tool as they
//! came: nothing checks them against the input schema. The request context carries a
//! `CancellationToken` that a tool may watch; `ToolRouter::call` does not race it.

use std::future::{Future, pending, ready};
use std::sync::Arc;

use rmcp::handler::server::tool::{ToolCallContext, ToolRoute, ToolRouter};
use rmcp::model::{
    CallToolRequestParams, CallToolResponse, CallToolResult, ContentBlock, JsonObject,
    NumberOrString, Tool,
};
use rmcp::service::{
    Peer, RequestContext, RunningService, RxJsonRpcMessage, TxJsonRpcMessage, serve_directly,
};
use rmcp::transport::Transport;
use rmcp::{ErrorData, RoleServer, ServerHandler};
use serde_json::{Value, json};
use tokio_util::sync::CancellationToken;

use crate::workload::{self, ADD, HANG, ORDER, SLEEP};

/// The service the tools belong to; it holds nothing.
#[derive(Debug, Clone, Copy)]
pub struct Service;

impl ServerHandler for Service {}

static SERVICE: Service = Service;

/// A transport that sends nowhere and never receives.
struct Silent;

impl Transport<RoleServer> for Silent {
    type Error = std::io::Error;

    fn send(
        &mut self,
        _: TxJsonRpcMessage<RoleServer>,
    ) -> impl Future<Output = Result<(), Self::Error>> + Send + 'static {
        ready(Ok(()))
    }

    fn receive(&mut self) -> impl Future<Output = Option<RxJsonRpcMessage<RoleServer>>> + Send {
        pending()
    }

    fn close(&mut self) -> impl Future<Output = Result<(), Self::Error>> + Send {
        ready(Ok(()))
    }
}

/// A tool router and the peer its calls' contexts need.
#[derive(Clone)]
pub struct Router {
    tools: Arc<ToolRouter<Service>>,
    peer: Peer<RoleServer>,
    _service: Arc<RunningService<RoleServer, Service>>,
}

impl std::fmt::Debug for Router {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Router").finish_non_exhaustive()
    }
}

impl Router {
    /// Starts the silent service for `tools`; call it within a tokio runtime.
    pub fn new(tools: ToolRouter<Service>) -> Self {
        let service = serve_directly::<RoleServer, _, _, _, _>(Service, Silent, None);
        let peer = service.peer().clone();
        Self { tools: Arc::new(tools), peer, _service: Arc::new(service) }
    }

    fn context(
        &self,
        name: &str,
        arguments: Option<JsonObject>,
    ) -> ToolCallContext<'static, Service> {
        let mut params = CallToolRequestParams::new(name.to_owned());
        params.arguments = arguments;
        let request = RequestContext::new(NumberOrString::Number(1), self.peer.clone());
        ToolCallContext::new(&SERVICE, params, request)
    }
}

fn tool(name: &str, schema: Value) -> Tool {
    let Value::Object(schema) = schema else { unreachable!("schemas are objects") };
    Tool::new(name.to_owned(), format!("The {name} tool."), Arc::new(schema))
}

fn text(out: String) -> Result<CallToolResponse, ErrorData> {
    Ok(CallToolResult::success(vec![ContentBlock::text(out)]).into())
}

fn sync_route(
    name: &str,
    schema: Value,
    run: impl Fn(&Value) -> Value + Send + Sync + 'static,
) -> ToolRoute<Service> {
    ToolRoute::new_dyn(tool(name, schema), move |ctx| {
        let args = Value::Object(ctx.arguments.unwrap_or_default());
        Box::pin(ready(text(run(&args).to_string())))
    })
}

/// Every workload's tools.
///
/// [`HANG`] tells `started` when it runs, then never finishes and never looks at its token.
pub fn router(started: impl Fn() + Send + Sync + 'static) -> Router {
    let mut tools = ToolRouter::new();
    tools.add_route(sync_route(ADD, workload::add_schema(), workload::add));
    tools.add_route(sync_route(ORDER, workload::order_schema(), workload::order_total));
    tools.add_route(ToolRoute::new_dyn(tool(SLEEP, json!({"type": "object"})), |_| {
        Box::pin(async {
            tokio::time::sleep(workload::SLEEP_FOR).await;
            text("slept".to_owned())
        })
    }));
    let started = Arc::new(started);
    tools.add_route(ToolRoute::new_dyn(tool(HANG, json!({"type": "object"})), move |_| {
        started();
        Box::pin(pending())
    }));
    Router::new(tools)
}

fn succeeded(response: Result<CallToolResponse, ErrorData>) -> bool {
    matches!(response, Ok(CallToolResponse::Complete(result)) if result.is_error != Some(true))
}

/// Parses `args` and calls `name` through the router.
pub async fn call(router: &Router, name: &str, args: &str) -> bool {
    let arguments = serde_json::from_str(args).ok();
    succeeded(router.tools.call(router.context(name, arguments)).await)
}

/// Calls `name` with `cancel` as the request's token, raced by the caller against it, since
/// the router does not race it. The token winning gives the error result a user's glue would
/// make for the model; true when it won.
pub async fn call_cancelled_by_caller(
    router: &Router,
    name: &str,
    cancel: CancellationToken,
) -> bool {
    let mut context = router.context(name, Some(JsonObject::new()));
    context.request_context.ct = cancel.clone();
    let response = tokio::select! {
        response = router.tools.call(context) => response,
        () = cancel.cancelled() => {
            let text = ContentBlock::text("the call was cancelled");
            Ok(CallToolResult::error(vec![text]).into())
        }
    };
    matches!(response, Ok(CallToolResponse::Complete(result)) if result.is_error == Some(true))
}

/// The OpenAI Chat Completions tool list, from `ToolRouter::list_all`; rmcp has no helper,
/// so a user writes this.
pub fn openai_tools(router: &Router) -> Vec<Value> {
    router
        .tools
        .list_all()
        .into_iter()
        .map(|tool| {
            json!({"type": "function", "function": {
                "name": tool.name,
                "description": tool.description,
                "parameters": tool.input_schema,
            }})
        })
        .collect()
}

/// `n` tools of the catalog of workload (e); call it within a tokio runtime.
pub fn catalog(n: usize) -> Router {
    let mut tools = ToolRouter::new();
    for entry in workload::catalog(n) {
        let mut attr = tool(&entry.name, entry.schema);
        attr.description = Some(entry.description.into());
        tools.add_route(ToolRoute::new_dyn(attr, |_| Box::pin(ready(text(String::new())))));
    }
    Router::new(tools)
}
