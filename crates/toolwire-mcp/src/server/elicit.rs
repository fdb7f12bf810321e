//! A pending result as an `elicitation/create` request, and the client's reply as an
//! [`Answer`].

use rmcp::model::{ElicitRequestParams, ElicitResult, ElicitationAction, ElicitationSchema};
use rmcp::service::ElicitationMode;
use rmcp::{Peer, RoleServer};
use serde_json::Value;
use toolwire::{Answer, Request};

/// Asks the client to answer `request`: by URL when the request has one and the client takes
/// URL elicitations, otherwise by form, with the request's `data` as the form's schema when it
/// is one. `None` when the client declared no elicitation it can use; an error text when the
/// elicitation itself failed.
pub(crate) async fn ask(
    peer: &Peer<RoleServer>,
    request: &Request,
) -> Option<Result<Answer, String>> {
    let modes = peer.supported_elicitation_modes();
    let params = params(
        request,
        modes.contains(&ElicitationMode::Url),
        modes.contains(&ElicitationMode::Form),
    )?;
    let reply = match peer.create_elicitation(params).await {
        Ok(reply) => reply,
        Err(error) => return Some(Err(format!("the client did not answer the request: {error}"))),
    };
    Some(Ok(answer_of(&request.id, reply)))
}

/// The elicitation that asks `request`: by URL when it has one and the client takes URL
/// elicitations (`url`), by form when the client takes forms (`form`); `None` when neither.
pub(crate) fn params(request: &Request, url: bool, form: bool) -> Option<ElicitRequestParams> {
    match &request.url {
        Some(page) if url => Some(ElicitRequestParams::UrlElicitationParams {
            meta: None,
            message: request.prompt.clone(),
            url: page.clone(),
            elicitation_id: request.id.clone(),
        }),
        _ if form => Some(ElicitRequestParams::FormElicitationParams {
            meta: None,
            message: request.prompt.clone(),
            requested_schema: form_schema(request.data.as_ref()),
        }),
        _ => None,
    }
}

/// The client's reply to the request `id`, as its answer: accepted with the form's content,
/// or declined (a cancel declines too).
pub(crate) fn answer_of(id: &str, reply: ElicitResult) -> Answer {
    match reply.action {
        ElicitationAction::Accept => Answer::accept(id, reply.content.unwrap_or(Value::Null)),
        ElicitationAction::Decline => Answer::decline(id, "declined by the user"),
        _ => Answer::decline(id, "cancelled by the user"),
    }
}

/// The form a request asks for: its `data` when that is an elicitation schema (an object of
/// primitive properties), otherwise an empty form, which asks only to accept or decline.
fn form_schema(data: Option<&Value>) -> ElicitationSchema {
    let empty = || ElicitationSchema::builder().build_unchecked();
    match data {
        Some(schema) if schema.get("type").and_then(Value::as_str) == Some("object") => {
            serde_json::from_value(schema.clone()).unwrap_or_else(|_| empty())
        }
        _ => empty(),
    }
}
