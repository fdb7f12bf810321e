//! A pending toolwire [`Request`] as the `inputRequests` of an MCP 2026-07-28
//! `InputRequiredResult`, and the client's `inputResponses` as the [`Answer`] of the retry.
//!
//! A request becomes one elicitation: by URL when it has a URL and the client takes URL
//! elicitations, by form otherwise, under the key of its kind (`approval`, `input`, ...). A
//! handler that speaks MCP itself returns a request of kind [`INPUT_REQUESTS_KIND`], whose
//! `data` is the `inputRequests` object as MCP defines it (elicitation, sampling, roots); its
//! answer's value is then the client's `inputResponses` for those keys.

use rmcp::ErrorData;
use rmcp::model::{ClientCapabilities, ElicitRequest, InputRequest, InputRequests, InputResponses};
use serde_json::{Map, Value};
use toolwire::{Answer, Request};

use super::elicit::{answer_of, params};

/// The kind of a [`Request`] whose `data` is MCP `inputRequests`, passed to the client as they
/// are (after a check of their shape): for handlers that ask for sampling or the client's
/// roots, or for several inputs at once.
pub const INPUT_REQUESTS_KIND: &str = "mcp.input_requests";

/// The `inputRequests` for `request`, leaving out what the client declared no capability for.
/// When nothing is left, the JSON-RPC error that names the capability the call needs.
pub(crate) fn input_requests(
    request: &Request,
    client: &ClientCapabilities,
) -> Result<InputRequests, ErrorData> {
    if request.kind == INPUT_REQUESTS_KIND {
        return passed_through(request, client);
    }
    let Some(elicitation) = &client.elicitation else {
        return Err(missing(ClientCapabilities::builder().enable_elicitation().build()));
    };
    // A client that names no mode takes forms.
    let form = elicitation.form.is_some() || elicitation.url.is_none();
    let Some(params) = params(request, elicitation.url.is_some(), form) else {
        return Err(missing(ClientCapabilities::builder().enable_elicitation().build()));
    };
    let key = key_of(request);
    Ok(InputRequests::from([(key, InputRequest::Elicitation(ElicitRequest::new(params)))]))
}

/// The key a request of toolwire's own is asked under: its kind, when that is a plain word.
pub(crate) fn key_of(request: &Request) -> String {
    let plain = !request.kind.is_empty()
        && request.kind.len() <= 64
        && request.kind.bytes().all(|b| b.is_ascii_alphanumeric() || b"_-.".contains(&b));
    if plain { request.kind.clone() } else { "input".to_owned() }
}

/// A handler's own MCP `inputRequests`, minus those the client cannot answer.
fn passed_through(
    request: &Request,
    client: &ClientCapabilities,
) -> Result<InputRequests, ErrorData> {
    let data = request.data.clone().unwrap_or(Value::Null);
    let asked: InputRequests = serde_json::from_value(data).map_err(|error| {
        ErrorData::internal_error(
            format!("the tool's {INPUT_REQUESTS_KIND} request is not MCP inputRequests: {error}"),
            None,
        )
    })?;
    let mut needed = ClientCapabilities::default();
    let mut kept = InputRequests::new();
    for (key, input) in asked {
        let able = match &input {
            InputRequest::Elicitation(_) => client.elicitation.is_some(),
            InputRequest::CreateMessage(_) => client.sampling.is_some(),
            InputRequest::ListRoots(_) => client.roots.is_some(),
            // A kind newer than this build: passed on, for the client to judge.
            _ => true,
        };
        if able {
            kept.insert(key, input);
            continue;
        }
        match input {
            InputRequest::Elicitation(_) => needed.elicitation = Some(Default::default()),
            InputRequest::CreateMessage(_) => needed.sampling = Some(Default::default()),
            InputRequest::ListRoots(_) => needed.roots = Some(Default::default()),
            _ => {}
        }
    }
    if kept.is_empty() {
        return Err(missing(needed));
    }
    Ok(kept)
}

fn missing(needed: ClientCapabilities) -> ErrorData {
    ErrorData::missing_required_client_capability(needed)
}

/// The answer to the request `id` asked under `keys`, from the client's `responses`: for a
/// request of toolwire's own, its one elicitation result (accept, decline or cancel); for an
/// [`INPUT_REQUESTS_KIND`] request, the responses to its keys, as one object. `None` when a
/// key asked has no response, so the request is asked again; keys never asked are ignored.
/// A response that is not the result its key asked for is an error.
pub(crate) fn answer(
    id: &str,
    keys: &[String],
    passthrough: bool,
    responses: Option<&InputResponses>,
) -> Result<Option<Answer>, ErrorData> {
    let Some(responses) = responses else { return Ok(None) };
    if passthrough {
        let mut given = Map::new();
        for key in keys {
            let Some(response) = responses.get(key) else { return Ok(None) };
            if !response.is_object() {
                return Err(invalid(&format!("inputResponses.{key} is not a result object")));
            }
            given.insert(key.clone(), response.clone());
        }
        return Ok(Some(Answer::accept(id, Value::Object(given))));
    }
    let key = keys.first().map(String::as_str).unwrap_or("input");
    let Some(response) = responses.get(key) else { return Ok(None) };
    let reply = serde_json::from_value(response.clone()).map_err(|error| {
        invalid(&format!("inputResponses.{key} is not an elicitation result: {error}"))
    })?;
    Ok(Some(answer_of(id, reply)))
}

fn invalid(why: &str) -> ErrorData {
    ErrorData::invalid_params(why.to_owned(), None)
}
