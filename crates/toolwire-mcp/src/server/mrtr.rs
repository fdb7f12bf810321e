//! A `tools/call` on MCP 2026-07-28 (SEP-2322, "multi round-trip requests"): a pending result
//! becomes an `InputRequiredResult`, and the client's retry, with its `inputResponses` and the
//! echoed `requestState`, resumes the call.
//!
//! The server sends no request of its own. Each round is a new `tools/call`, so what ties the
//! retry to the first round is the state alone: it is sealed with the registry's key, bound
//! to the tool, the call's digest and the client, short-lived, and spent once in the
//! registry's approval store. A state that fails any of that is a JSON-RPC error, and nothing
//! runs. The answer inside is then checked by the registry as every answer is: its keyed id,
//! its digest, its expiry, and spent once.

use rmcp::ErrorData;
use rmcp::RoleServer;
use rmcp::model::{
    CallToolRequestParams, CallToolResponse, ClientCapabilities, InputRequiredResult,
    InputResponses,
};
use rmcp::service::RequestContext;
use serde_json::Value;
use toolwire::policy::{SpendError, call_digest};
use toolwire::{Answer, CallId, InvocationId, Registry, Request};

use super::request_state::{Binding, RequestState};
use super::round::Call;
use super::{Extras, input, parked};
use crate::Revision;

/// Whether the request speaks MCP 2026-07-28 or later: stateless, with no requests to the
/// client.
pub(crate) fn is_stateless(ctx: &RequestContext<RoleServer>) -> bool {
    ctx.protocol_version()
        .and_then(|version| Revision::of(version.as_str()))
        .is_some_and(Revision::is_stateless)
}

/// What a round needs to know of the client that sent it: its capabilities, read from the
/// request, and its credential, which makes its identity (see [`principal`]).
pub(crate) trait Client {
    /// The capabilities the request declares; none when it declares nothing.
    fn capabilities(&self) -> ClientCapabilities;

    /// The request's `Authorization` header, when it came over HTTP with one.
    fn credential(&self) -> Option<&[u8]>;

    /// Who calls, as the transport proved it (a named client's token); `None` otherwise.
    fn principal(&self) -> Option<toolwire::Principal>;
}

impl Client for RequestContext<RoleServer> {
    fn capabilities(&self) -> ClientCapabilities {
        self.client_capabilities().unwrap_or_default()
    }

    fn credential(&self) -> Option<&[u8]> {
        #[cfg(feature = "server-http")]
        {
            let parts = self.extensions.get::<http::request::Parts>()?;
            parts.headers.get(http::header::AUTHORIZATION).map(http::HeaderValue::as_bytes)
        }
        #[cfg(not(feature = "server-http"))]
        None
    }

    fn principal(&self) -> Option<toolwire::Principal> {
        #[cfg(feature = "server-http")]
        {
            let parts = self.extensions.get::<http::request::Parts>()?;
            parts.extensions.get::<toolwire::Principal>().cloned()
        }
        #[cfg(not(feature = "server-http"))]
        None
    }
}

/// What a retry carries over from the round before.
pub(crate) struct Retry {
    state: Option<String>,
    responses: Option<InputResponses>,
}

impl Retry {
    /// A first round: no state, no responses.
    #[cfg(feature = "server-http")]
    pub(crate) const FIRST: Self = Self { state: None, responses: None };

    /// Takes the retry's fields out of the request.
    pub(crate) fn take(request: &mut CallToolRequestParams) -> Self {
        Self { state: request.request_state.take(), responses: request.input_responses.take() }
    }
}

/// Runs one round of the call.
pub(crate) async fn run<H: Extras>(
    call: &Call<'_, H>,
    retry: Retry,
    ctx: &impl Client,
    arguments: Value,
) -> Result<CallToolResponse, ErrorData> {
    let (call_id, answer) = begin(call, retry, ctx, &arguments).await?;
    let receipt = call.invoke_as(&call_id, arguments, answer).await;
    let Some(request) = receipt.result.pending_request() else {
        return Ok(call.result(&receipt.result));
    };
    let asked = input_required(call, ctx, &call_id, request)?;
    let shared = &call.server.shared;
    if shared.tasks.host_answers {
        let principal = principal(&shared.registry, ctx);
        let call_id = &call_id;
        parked::keep(shared, parked::Parked { tool: call.name, call_id, principal, request }).await;
    }
    Ok(asked)
}

/// The call id a round runs under, and the answer it runs with: a retry's, once its state
/// is checked and spent, or a fresh call id and no answer for a first round.
pub(crate) async fn begin<H: Extras>(
    call: &Call<'_, H>,
    retry: Retry,
    ctx: &impl Client,
    arguments: &Value,
) -> Result<(CallId, Option<Answer>), ErrorData> {
    match retry.state {
        Some(sealed) => {
            let principal = principal(&call.server.shared.registry, ctx);
            resumed(call, &sealed, retry.responses.as_ref(), arguments, principal.as_deref()).await
        }
        // Responses without a state answer nothing this server asked: the call starts over.
        // JSON-RPC ids repeat across clients without sessions, so the call gets its own id,
        // unique across processes and machines (a UUIDv7). It is no secret: the state that
        // names it is sealed. So it comes from a generator seeded once, not from the
        // operating system's on every call, which costs a system call.
        None => Ok((CallId::from(format!("mcp-{}", InvocationId::new())), None)),
    }
}

/// The `InputRequiredResult` that asks the client `request`, the pending request of the
/// round that ran under `call_id`, with its sealed state.
pub(crate) fn input_required<H: Extras>(
    call: &Call<'_, H>,
    ctx: &impl Client,
    call_id: &CallId,
    request: &Request,
) -> Result<CallToolResponse, ErrorData> {
    let shared = &call.server.shared;
    // The pipeline binds every request it returns to the call's digest.
    let Some(digest) = request.digest.as_deref() else {
        return Err(ErrorData::internal_error("the pending request has no call digest", None));
    };
    let principal = principal(&shared.registry, ctx);
    let capabilities = ctx.capabilities();
    let asked = input::input_requests(request, &capabilities)?;
    let keys = asked.keys().cloned().collect();
    let passthrough = request.kind == input::INPUT_REQUESTS_KIND;
    let binding = Binding { tool: call.name, call_id, digest, principal: principal.as_deref() };
    let state = RequestState::new(binding, &request.id, keys, passthrough, shared.state_ttl);
    let sealed = state.seal(shared.registry.approval_key());
    Ok(InputRequiredResult::new(Some(asked), Some(sealed)).into())
}

/// The call id and the answer of a retry, once its state is checked and spent. The answer is
/// `None` when the responses leave out a key that was asked: the round runs unanswered and
/// asks again, as SEP-2322 advises, rather than failing.
async fn resumed<H: Extras>(
    call: &Call<'_, H>,
    sealed: &str,
    responses: Option<&InputResponses>,
    arguments: &Value,
    principal: Option<&str>,
) -> Result<(CallId, Option<Answer>), ErrorData> {
    let registry = &call.server.shared.registry;
    let refused = |why: String| ErrorData::invalid_params(why, None);
    let state =
        RequestState::open(registry.approval_key(), sealed).map_err(|e| refused(e.to_string()))?;
    let digest = call_digest(call.name, &state.call_id, arguments);
    let binding = Binding { tool: call.name, call_id: &state.call_id, digest: &digest, principal };
    state.check(binding).map_err(|e| refused(e.to_string()))?;
    // The state is spent before anything runs, whatever the responses say: each state
    // resumes one round, and a round that asks again issues a new one.
    match registry.spend_once(state.spent()).await {
        Ok(()) => {}
        Err(SpendError::AlreadySpent) => {
            return Err(refused("the requestState was already used; call the tool again".into()));
        }
        Err(SpendError::Store(why)) => {
            return Err(ErrorData::internal_error(
                format!("the requestState could not be spent: {why}"),
                None,
            ));
        }
    }
    let shared = &call.server.shared;
    let host = match shared.tasks.host_answers {
        true => parked::take_answer(shared, &state.request_id).await,
        false => None,
    };
    let answer = match host {
        Some(answer) => Some(answer),
        None => input::answer(&state.request_id, &state.keys, state.passthrough, responses)?,
    };
    Ok((CallId::from(state.call_id), answer))
}

/// The client's identity, as far as the transport knows it: a keyed hash of the HTTP request's
/// `Authorization` header. A state (or a task) made for one credential is refused with
/// another.
pub(crate) fn principal(registry: &Registry, ctx: &impl Client) -> Option<String> {
    let credential = ctx.credential()?;
    let tag = registry.approval_key().sign("toolwire-mcp/principal/v1", credential);
    Some(super::request_state::hex(&tag[..16]))
}
