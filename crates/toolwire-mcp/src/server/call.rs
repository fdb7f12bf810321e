//! One `tools/call`: through the registry's pipeline, its events forwarded, its suspensions
//! asked of the client, its result in MCP's shape.

use std::future::IntoFuture;
use std::pin::pin;

use rmcp::ErrorData;
use rmcp::RoleServer;
use rmcp::model::{
    CallToolRequestParams, CallToolResponse, CallToolResult, ContentBlock, NumberOrString,
};
use rmcp::service::RequestContext;
use serde_json::Value;
use tokio::sync::mpsc;
use toolwire::{AbortSignal, Answer, CallId, Receipt};

use super::events::Forwarder;
use super::{Extras, McpServer, content, elicit, limits, task_peer};

/// How many times one `tools/call` may suspend and be answered before it gives up.
const MAX_ROUNDS: usize = 8;

/// Runs a `tools/call`.
pub(crate) async fn call_tool<H: Extras>(
    server: &McpServer<H>,
    request: CallToolRequestParams,
    ctx: RequestContext<RoleServer>,
) -> Result<CallToolResponse, ErrorData> {
    let shared = &server.shared;
    let name = request.name.as_ref();
    if shared.registry.get(name).is_none() {
        let shown: String = name.chars().take(128).collect();
        return Err(ErrorData::invalid_params(format!("unknown tool {shown:?}"), None));
    }
    let _permits = match limits::admit(&server.session.calls, &shared.limits) {
        Ok(permits) => permits,
        Err(why) => return Ok(error(why)),
    };
    let arguments = request.arguments.map_or(Value::Null, Value::Object);
    let call = Call {
        server,
        name,
        call_id: call_id(&ctx.id),
        signal: AbortSignal::from(ctx.ct.clone()),
        forwarder: Forwarder {
            peer: &ctx.peer,
            session: &server.session,
            progress_token: ctx.meta.get_progress_token(),
            logger: name,
        },
    };
    // The handler runs on this task, so it reaches the client through `peer()`.
    task_peer::scope(ctx.peer.clone(), call.run(arguments)).await
}

/// A call in progress, across its rounds of suspension.
struct Call<'a, H> {
    server: &'a McpServer<H>,
    name: &'a str,
    call_id: CallId,
    signal: AbortSignal,
    forwarder: Forwarder<'a>,
}

impl<H: Extras> Call<'_, H> {
    async fn run(&self, arguments: Value) -> Result<CallToolResponse, ErrorData> {
        let mut answer = None;
        for _ in 0..MAX_ROUNDS {
            let receipt = self.invoke(arguments.clone(), answer.take()).await;
            let Some(request) = receipt.result.pending_request() else {
                return Ok(content::call_result(&receipt.result).into());
            };
            match elicit::ask(self.forwarder.peer, request).await {
                Some(Ok(reply)) => answer = Some(reply),
                Some(Err(why)) => return Ok(error(why)),
                None => return Ok(content::call_result(&receipt.result).into()),
            }
        }
        Ok(error(format!(
            "the call of {:?} asked for input {MAX_ROUNDS} times; giving up",
            self.name
        )))
    }

    /// One round: the invocation, with its events forwarded as they come.
    async fn invoke(&self, arguments: Value, answer: Option<Answer>) -> Receipt {
        let shared = &self.server.shared;
        let (events, mut received) = mpsc::unbounded_channel::<Value>();
        let mut options =
            shared.options.clone().signal(self.signal.clone()).on_event(move |event| {
                // The receiver lives as long as the call; a late event is dropped.
                let _ = events.send(event);
            });
        if let Some(answer) = answer {
            options = options.answer(answer);
        }
        let invocation = shared
            .registry
            .invoke(self.name, arguments)
            .call_id(self.call_id.clone())
            .options(options);
        let mut running = pin!(invocation.into_future());
        let receipt = loop {
            tokio::select! {
                biased;
                receipt = &mut running => break receipt,
                Some(event) = received.recv() => self.forwarder.forward(event).await,
            }
        };
        // Events emitted just before the result still go out before it.
        while let Ok(event) = received.try_recv() {
            self.forwarder.forward(event).await;
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
fn error(text: String) -> CallToolResponse {
    CallToolResult::error(vec![ContentBlock::text(text)]).into()
}
