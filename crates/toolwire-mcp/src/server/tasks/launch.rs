//! A task's call, started in the background under a signal of its own: it outlives the
//! request that started it, so the request's cancellation does not stop it; `tasks/cancel`
//! does.

use std::future::IntoFuture;

use serde_json::Value;
use tokio::sync::mpsc;
use tokio::task::JoinHandle;
use toolwire::{AbortController, Answer, CallId, Receipt};

use super::super::{Extras, McpServer};

/// A call running in the background.
pub(crate) struct Launched {
    /// Its receipt, when it ends.
    pub(crate) handle: JoinHandle<Receipt>,
    /// What stops it.
    pub(crate) controller: AbortController,
    /// The events its handler emits.
    pub(crate) events: mpsc::UnboundedReceiver<Value>,
}

/// Starts the call of `tool` with `arguments` under `call_id`, with the server's call
/// options, and `answer` when it resumes a question.
pub(crate) fn launch<H: Extras>(
    server: &McpServer<H>,
    tool: &str,
    arguments: Value,
    call_id: CallId,
    answer: Option<Answer>,
    principal: Option<toolwire::Principal>,
) -> Launched {
    let shared = &server.shared;
    let controller = AbortController::new();
    let (sender, events) = mpsc::unbounded_channel();
    let mut options = shared.options.clone().signal(controller.signal()).on_event(move |event| {
        // Nobody may be listening any more; a late event is dropped.
        let _ = sender.send(event);
    });
    if let Some(answer) = answer {
        options = options.answer(answer);
    }
    if let Some(principal) = principal {
        options = options.principal(principal);
    }
    let invocation = shared.registry.invoke(tool, arguments).call_id(call_id).options(options);
    Launched { handle: tokio::spawn(invocation.into_future()), controller, events }
}
