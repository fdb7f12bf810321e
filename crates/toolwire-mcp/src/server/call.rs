//! One `tools/call`: through the registry's pipeline, its events forwarded, its suspensions
//! asked of the client, its result in MCP's shape.

use rmcp::ErrorData;
use rmcp::RoleServer;
use rmcp::model::{CallToolRequestParams, CallToolResponse, ClientCapabilities, NumberOrString};
use rmcp::service::RequestContext;
use serde_json::Value;
use toolwire::{AbortSignal, CallId, TaskSupport};

use super::events::{Forwarder, floor_of};
use super::round::{Call, error};
use super::{Extras, McpServer, elicit, limits, mrtr, task_peer, tasks};

/// How many times one `tools/call` may suspend and be answered before it gives up.
const MAX_ROUNDS: usize = 8;

/// Runs a `tools/call`.
pub(crate) async fn call_tool<H: Extras>(
    server: &McpServer<H>,
    mut request: CallToolRequestParams,
    ctx: RequestContext<RoleServer>,
) -> Result<CallToolResponse, ErrorData> {
    let shared = &server.shared;
    let name = request.name.as_ref();
    let Some(tool) = shared.registry.get(name) else {
        let shown: String = name.chars().take(128).collect();
        return Err(ErrorData::invalid_params(format!("unknown tool {shown:?}"), None));
    };
    let stateless = mrtr::is_stateless(&ctx);
    // Tasks are the 2026-07-28 extension; a client follows them if it says so.
    // Only a tool that may be a task needs the client's capabilities read (a copy).
    let follows_tasks =
        || stateless && ctx.client_capabilities().is_some_and(|caps| caps.supports_tasks());
    let Some(as_task) = runs_as_task(tool.task_support(), follows_tasks) else {
        return Err(ErrorData::missing_required_client_capability(
            ClientCapabilities::builder().enable_tasks().build(),
        ));
    };
    let permits = match limits::admit(&server.session.calls, &shared.limits) {
        Ok(permits) => permits,
        Err(why) => return Ok(error(why)),
    };
    let retry = mrtr::Retry::take(&mut request);
    let name = request.name.as_ref();
    let arguments = request.arguments.map_or(Value::Null, Value::Object);
    let call = Call {
        server,
        name,
        call_id: call_id(&ctx.id),
        signal: AbortSignal::from(ctx.ct.clone()),
        forwarder: Forwarder {
            peer: Some(&ctx.peer),
            session: &server.session,
            progress_token: ctx.meta.get_progress_token(),
            logger: name,
            floor: stateless.then(|| floor_of(ctx.meta.log_level())),
        },
        principal: mrtr::Client::principal(&ctx),
    };
    if as_task {
        return Box::pin(tasks::start(&call, retry, &ctx, arguments, permits)).await;
    }
    let _permits = permits;
    if stateless {
        // No session and no requests to the client: one round per `tools/call`, each
        // retry carrying the sealed state of the last.
        return Box::pin(mrtr::run(&call, retry, &ctx, arguments)).await;
    }
    // The handler runs on this task, so it reaches the client through `peer()`.
    task_peer::scope(ctx.peer.clone(), session_rounds(&call, arguments)).await
}

/// Whether a call of a tool with `support` runs as a task, for a client that `follows` the
/// tasks extension; `None` when the tool requires a task and the client does not follow them.
pub(crate) fn runs_as_task(support: TaskSupport, follows: impl FnOnce() -> bool) -> Option<bool> {
    match support {
        TaskSupport::Forbidden => Some(false),
        TaskSupport::Required => follows().then_some(true),
        _ => Some(follows()),
    }
}

/// Runs a plain MCP 2026-07-28 `tools/call` that reached the server without rmcp's
/// per-request service (see `direct`): the first round of a call of a tool that is never a
/// task, whose request asks for no events. It runs as [`call_tool`] would run it: through
/// the call limits and the pipeline, a pending result becoming an `InputRequiredResult`.
#[cfg(feature = "server-http")]
pub(crate) async fn call_plain<H: Extras>(
    server: &McpServer<H>,
    request: CallToolRequestParams,
    id: &NumberOrString,
    client: &impl mrtr::Client,
) -> Result<CallToolResponse, ErrorData> {
    let _permits = match limits::admit(&server.session.calls, &server.shared.limits) {
        Ok(permits) => permits,
        Err(why) => return Ok(error(why)),
    };
    let name = request.name.as_ref();
    let arguments = request.arguments.map_or(Value::Null, Value::Object);
    let call = Call {
        server,
        name,
        call_id: call_id(id),
        // The call is dropped, and its handler with it, if the client goes away.
        signal: AbortSignal::never(),
        forwarder: Forwarder::none(&server.session, name),
        principal: client.principal(),
    };
    mrtr::run(&call, mrtr::Retry::FIRST, client, arguments).await
}

/// The rounds of a call in a session (2025-11-25): each pending request is asked of the
/// client (elicitation), and the call is invoked again with its answer.
async fn session_rounds<H: Extras>(
    call: &Call<'_, H>,
    arguments: Value,
) -> Result<CallToolResponse, ErrorData> {
    let mut answer = None;
    for _ in 0..MAX_ROUNDS {
        let receipt = call.invoke(arguments.clone(), answer.take()).await;
        let Some(request) = receipt.result.pending_request() else {
            return Ok(call.result(&receipt.result));
        };
        // A session's call always has its client; without one there is nobody to ask.
        let asked = match call.forwarder.peer {
            Some(peer) => Box::pin(elicit::ask(peer, request)).await,
            None => None,
        };
        match asked {
            Some(Ok(reply)) => answer = Some(reply),
            Some(Err(why)) => return Ok(error(why)),
            None => return Ok(call.result(&receipt.result)),
        }
    }
    Ok(error(format!("the call of {:?} asked for input {MAX_ROUNDS} times; giving up", call.name)))
}

/// The JSON-RPC request id as a call id.
fn call_id(id: &NumberOrString) -> CallId {
    match id {
        NumberOrString::Number(n) => CallId::from(n.to_string()),
        NumberOrString::String(s) => CallId::from(std::sync::Arc::clone(s)),
    }
}
