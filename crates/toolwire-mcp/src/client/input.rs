//! MCP 2026-07-28 on the calling side (SEP-2322): a server that answers a `tools/call` with an
//! `InputRequiredResult` wants input before it goes on, and the call is retried with the
//! client's `inputResponses` and the server's `requestState`, echoed unchanged.
//!
//! With an elicitation handler ([`ClientOptions::on_elicitation`](super::ClientOptions)), the
//! handler answers form elicitations at once and the call is retried within the same
//! invocation, as it answers a 2025-11-25 server's `elicitation/create`. Without one, a single
//! elicitation becomes a pending toolwire result: its [`Request`] carries the server's
//! question, so the host's own approval flow answers it (a prompt, the journal, an agent's
//! pending run), and the invocation retried with that [`Answer`] sends the responses. The
//! server's state waits for that retry here, in memory, keyed by the call's digest; an answer
//! that finds none (the process restarted, or the state lapsed) starts the call over, and
//! answers the first question the server asks again: the host checked that the answer was
//! made for this very call (a registry binds every request it hands out).

use std::collections::HashMap;
use std::sync::{Mutex, PoisonError};
use std::time::{Duration, Instant};

use rmcp::model::{
    ElicitRequestParams, ElicitResult, ElicitationAction, InputRequest, InputRequiredResult,
    InputResponses,
};
use serde_json::Value;
use toolwire::{Answer, Request};

use super::elicit::ElicitationHandler;

/// How many calls may wait for an answer per connection; the oldest is forgotten past it.
const MAX_PARKED: usize = 1024;
/// How long a parked state is kept without an answer.
const PARKED_TTL: Duration = Duration::from_secs(60 * 60);

/// What a call that waits for its answer needs on the retry.
#[derive(Debug, Clone)]
pub(crate) struct Parked {
    state: Option<String>,
    key: String,
    url_mode: bool,
    at: Instant,
    /// The task whose question it is, when the call became one: the answer goes to it with
    /// `tasks/update`, not in a retried `tools/call`.
    task: Option<String>,
}

impl Parked {
    /// The same, for a question of the task `id`.
    pub(crate) fn in_task(mut self, id: &str) -> Self {
        self.task = Some(id.to_owned());
        self
    }

    /// The task whose question it is, if any.
    pub(crate) fn task(&self) -> Option<&str> {
        self.task.as_deref()
    }
}

/// The calls of one connection that wait for the host's answer, by call digest.
#[derive(Debug, Default)]
pub(crate) struct Rounds(Mutex<HashMap<String, Parked>>);

impl Rounds {
    /// Keeps `parked` for the call with `digest`.
    pub(crate) fn park(&self, digest: String, parked: Parked) {
        let mut map = self.0.lock().unwrap_or_else(PoisonError::into_inner);
        map.retain(|_, waiting| waiting.at.elapsed() < PARKED_TTL);
        if map.len() >= MAX_PARKED {
            let oldest = map.iter().min_by_key(|(_, waiting)| waiting.at).map(|(k, _)| k.clone());
            if let Some(oldest) = oldest {
                map.remove(&oldest);
            }
        }
        map.insert(digest, parked);
    }

    /// The state the call with `digest` left, once.
    pub(crate) fn take(&self, digest: &str) -> Option<Parked> {
        let mut map = self.0.lock().unwrap_or_else(PoisonError::into_inner);
        map.remove(digest).filter(|parked| parked.at.elapsed() < PARKED_TTL)
    }
}

/// What to do about an `InputRequiredResult`.
pub(crate) enum Next {
    /// Send the call again with this state and these responses.
    Retry(Option<String>, InputResponses),
    /// Hand the question to the host, and keep what the retry needs.
    Ask(Box<Request>, Parked),
    /// The server asked for something this client cannot give.
    Fail(String),
}

/// Decides how `result` is answered, asking `handler` when there is one.
pub(crate) async fn next(
    server: &str,
    handler: Option<&ElicitationHandler>,
    result: InputRequiredResult,
) -> Next {
    let state = result.request_state;
    let requests = result.input_requests.unwrap_or_default();
    if requests.is_empty() {
        // Only a state: the server asks to be called again with it.
        return Next::Retry(state, InputResponses::new());
    }
    let mut forms = Vec::with_capacity(requests.len());
    for (key, request) in &requests {
        let InputRequest::Elicitation(elicit) = request else {
            return Next::Fail(format!(
                "mcp server {server:?} asked for {:?} ({}), which toolwire's client does not offer",
                key,
                method_of(request)
            ));
        };
        forms.push((key, &elicit.params));
    }
    if let Some(handler) = handler {
        let all_forms = forms
            .iter()
            .all(|(_, params)| matches!(params, ElicitRequestParams::FormElicitationParams { .. }));
        if all_forms {
            let mut responses = InputResponses::new();
            for (key, params) in forms {
                let reply = ask(server, handler, params).await;
                responses.insert(key.clone(), reply);
            }
            return Next::Retry(state, responses);
        }
    }
    let [(key, params)] = forms.as_slice() else {
        return Next::Fail(format!(
            "mcp server {server:?} asked {} questions at once; without an elicitation handler \
             toolwire's client answers one at a time",
            forms.len()
        ));
    };
    let (request, url_mode) = match params {
        ElicitRequestParams::FormElicitationParams { message, requested_schema, .. } => {
            let schema = serde_json::to_value(requested_schema).unwrap_or(Value::Null);
            (Request::new("input", message.clone()).data(schema), false)
        }
        ElicitRequestParams::UrlElicitationParams { message, url, .. } => {
            (Request::new("input", message.clone()).url(url.clone()), true)
        }
        _ => {
            return Next::Fail(format!(
                "mcp server {server:?} asked for {key:?} in an elicitation mode this client does not know"
            ));
        }
    };
    let parked = Parked { state, key: (*key).clone(), url_mode, at: Instant::now(), task: None };
    Next::Ask(Box::new(request), parked)
}

/// The `inputResponses` of a retry that carries the host's `answer`.
pub(crate) fn responses(parked: &Parked, answer: &Answer) -> (Option<String>, InputResponses) {
    let result = if !answer.ok {
        ElicitResult::new(ElicitationAction::Decline)
    } else if parked.url_mode {
        ElicitResult::new(ElicitationAction::Accept)
    } else {
        let content = match &answer.data {
            Value::Object(_) => answer.data.clone(),
            _ => Value::Object(Default::default()),
        };
        ElicitResult::new(ElicitationAction::Accept).with_content(content)
    };
    let mut responses = InputResponses::new();
    responses.insert(parked.key.clone(), serde_json::to_value(result).unwrap_or(Value::Null));
    (parked.state.clone(), responses)
}

/// Asks the handler one form elicitation; its reply as an `ElicitResult`, in JSON.
async fn ask(server: &str, handler: &ElicitationHandler, params: &ElicitRequestParams) -> Value {
    let ElicitRequestParams::FormElicitationParams { message, requested_schema, .. } = params
    else {
        return decline();
    };
    let result = handler.answer(server, message.clone(), requested_schema).await;
    serde_json::to_value(result).unwrap_or_else(|_| decline())
}

fn decline() -> Value {
    serde_json::to_value(ElicitResult::new(ElicitationAction::Decline)).unwrap_or(Value::Null)
}

fn method_of(request: &InputRequest) -> &'static str {
    match request {
        InputRequest::Elicitation(_) => "elicitation/create",
        InputRequest::CreateMessage(_) => "sampling/createMessage",
        InputRequest::ListRoots(_) => "roots/list",
        _ => "an input request of a newer revision",
    }
}
