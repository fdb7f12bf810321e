//! A call in progress, across its rounds of suspension: each round through the registry's
//! pipeline with its events forwarded as they come, and its result in MCP's shape. What a
//! session's call, a 2026-07-28 round (`mrtr`) and a task's start all run.

use std::future::IntoFuture;
use std::pin::pin;

use rmcp::model::{CallToolResponse, CallToolResult, ContentBlock};
use serde_json::Value;
use tokio::sync::mpsc;
use toolwire::{AbortSignal, Answer, CallId, Receipt};

use super::events::Forwarder;
use super::{Extras, McpServer, content};

/// A call in progress, across its rounds of suspension.
pub(super) struct Call<'a, H> {
    pub(super) server: &'a McpServer<H>,
    pub(super) name: &'a str,
    pub(super) call_id: CallId,
    pub(super) signal: AbortSignal,
    pub(super) forwarder: Forwarder<'a>,
    /// Who calls, as the transport proved it; else the server's own setting, if any.
    pub(super) principal: Option<toolwire::Principal>,
}

impl<H: Extras> Call<'_, H> {
    /// `result` as this call's MCP result.
    pub(super) fn result(&self, result: &toolwire::ToolResult) -> CallToolResponse {
        content::call_result(result, self.server.shared.registry.get(self.name)).into()
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
        if let Some(principal) = &self.principal {
            options = options.principal(principal.clone());
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

/// An `isError` result with `text`.
pub(super) fn error(text: String) -> CallToolResponse {
    CallToolResult::error(vec![ContentBlock::text(text)]).into()
}
