//! One `tools/call`: through the registry's pipeline, its events forwarded, its suspensions
//! asked of the client, its result in MCP's shape.

use std::future::IntoFuture;
use std::pin::pin;

use rmcp::ErrorData;
use rmcp::RoleServer;
use rmcp::model::{
    CallToolRequestParams, CallToolResponse, CallToolResult, ClientCapabilities, ContentBlock,
    NumberOrString,
};
use rmcp::service::RequestContext;
use serde_json::Value;
use tokio::sync::mpsc;
use toolwire::{AbortSignal, Answer, CallId, Receipt, TaskSupport};

use super::events::{Forwarder, floor_of};
use super::{Extras, McpServer, content, elicit, limits, mrtr, task_peer, tasks};

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
    task_peer::scope(ctx.peer.clone(), call.run(arguments)).await
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
    };
    mrtr::run(&call, mrtr::Retry::FIRST, client, arguments).await
}

/// A call in progress, across its rounds of suspension.
pub(super) struct Call<'a, H> {
    pub(super) server: &'a McpServer<H>,
    pub(super) name: &'a str,
    pub(super) call_id: CallId,
    pub(super) signal: AbortSignal,
    pub(super) forwarder: Forwarder<'a>,
}

impl<H: Extras> Call<'_, H> {
    /// `result` as this call's MCP result.
    pub(super) fn result(&self, result: &toolwire::ToolResult) -> CallToolResponse {
        content::call_result(result, self.server.shared.registry.get(self.name)).into()
    }

    async fn run(&self, arguments: Value) -> Result<CallToolResponse, ErrorData> {
        let mut answer = None;
        for _ in 0..MAX_ROUNDS {
            let receipt = self.invoke(arguments.clone(), answer.take()).await;
            let Some(request) = receipt.result.pending_request() else {
                return Ok(self.result(&receipt.result));
            };
            // A session's call always has its client; without one there is nobody to ask.
            let asked = match self.forwarder.peer {
                Some(peer) => Box::pin(elicit::ask(peer, request)).await,
                None => None,
            };
            match asked {
                Some(Ok(reply)) => answer = Some(reply),
                Some(Err(why)) => return Ok(error(why)),
                None => return Ok(self.result(&receipt.result)),
            }
        }
        Ok(error(format!(
            "the call of {:?} asked for input {MAX_ROUNDS} times; giving up",
            self.name
        )))
    }

    /// One round: the invocation, with its events forwarded as they come.
    pub(super) async fn invoke(&self, arguments: Value, answer: Option<Answer>) -> Receipt {
        self.invoke_as(&self.call_id, arguments, answer).await
    }

    /// One round under `call_id`. A call whose events could go nowhere gets no channel for
    /// them, and its handler is told that nobody listens.
    pub(super) async fn invoke_as(
        &self,
        call_id: &CallId,
        arguments: Value,
        answer: Option<Answer>,
    ) -> Receipt {
        let shared = &self.server.shared;
        let mut options = shared.options.clone().signal(self.signal.clone());
        if let Some(answer) = answer {
            options = options.answer(answer);
        }
        let invocation = shared.registry.invoke(self.name, arguments).call_id(call_id.clone());
        if !self.forwarder.listens() {
            return invocation.options(options).await;
        }
        let (events, mut received) = mpsc::unbounded_channel::<Value>();
        let options = options.on_event(move |event| {
            // The receiver lives as long as the call; a late event is dropped.
            let _ = events.send(event);
        });
        let mut running = pin!(invocation.options(options).into_future());
        let receipt = loop {
            tokio::select! {
                biased;
                receipt = &mut running => break receipt,
                Some(event) = received.recv() => Box::pin(self.forwarder.forward(event)).await,
            }
        };
        // Events emitted just before the result still go out before it.
        while let Ok(event) = received.try_recv() {
            Box::pin(self.forwarder.forward(event)).await;
        }
        receipt
    }
}

/// The JSON-RPC request id as a call id.
fn call_id(id: &NumberOrString) -> CallId {
    match id {
        NumberOrString::Number(n) => CallId::from(n.to_string()),
        NumberOrString::String(s) => CallId::from(std::sync::Arc::clone(s)),
    }
}

/// An `isError` result with `text`.
pub(super) fn error(text: String) -> CallToolResponse {
    CallToolResult::error(vec![ContentBlock::text(text)]).into()
}
