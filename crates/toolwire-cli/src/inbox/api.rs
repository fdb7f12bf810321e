//! The inbox's routes: the two pages, and under them the JSON API they call, which other
//! front ends and chat bots can use the same way.
//!
//! | route | what |
//! |---|---|
//! | `GET /api/waiting` | `{"event": ID, "items": [...]}`: every waiting request, newest first |
//! | `POST /api/answer` | `{"request_id", "action": "approve"/"decline"/"submit", "reason"?, "data"?}` |
//! | `GET /api/history?tool=&outcome=&limit=` | `{"receipts": [...]}`, newest first |
//! | `GET /api/events?since=ID` | server-sent events `added` and `removed` after event ID |

use std::convert::Infallible;
use std::sync::Arc;

use axum::Extension;
use axum::body::Bytes;
use axum::extract::{Query, State};
use axum::http::{HeaderMap, StatusCode, header};
use axum::response::sse::{Event as SseEvent, KeepAlive, Sse};
use axum::response::{Html, IntoResponse, Response};
use futures_util::stream::{self, Stream, StreamExt};
use serde::Deserialize;
use serde_json::json;
use toolwire::Receipt;

use super::Shared;
use super::access::Caller;
use super::act::{self, AnswerBody};
use super::feed::Event;
use super::page;

/// The most receipts the history shows.
const MAX_HISTORY: usize = 1000;

/// `GET /`.
pub(crate) async fn waiting_page(
    State(shared): State<Shared>,
    Extension(caller): Extension<Caller>,
) -> Html<String> {
    let (event, items) = shared.feed.snapshot();
    Html(page::waiting(&caller, &event, &items))
}

/// `GET /api/waiting`.
pub(crate) async fn waiting(State(shared): State<Shared>) -> Response {
    let (event, items) = shared.feed.snapshot();
    axum::Json(json!({"event": event, "items": *items})).into_response()
}

/// `POST /api/answer`.
pub(crate) async fn answer(
    State(shared): State<Shared>,
    Extension(caller): Extension<Caller>,
    body: Bytes,
) -> Response {
    let body: AnswerBody = match serde_json::from_slice(&body) {
        Ok(body) => body,
        Err(error) => return refusal(StatusCode::BAD_REQUEST, &format!("invalid answer: {error}")),
    };
    // Its own task: a client that goes (a closed tab) does not cut the answer off between
    // its record and its run, nor the call it runs.
    let acting = tokio::spawn(async move { act::answer(&shared, caller.who, body).await });
    let acted = acting.await.unwrap_or_else(|error| {
        Err(act::Refused { status: 500, message: format!("the answer failed: {error}") })
    });
    match acted {
        Ok(acted) => axum::Json(acted).into_response(),
        Err(refused) => {
            let status =
                StatusCode::from_u16(refused.status).unwrap_or(StatusCode::INTERNAL_SERVER_ERROR);
            refusal(status, &refused.message)
        }
    }
}

/// The filters of the history.
#[derive(Debug, Deserialize)]
pub(crate) struct HistoryQuery {
    /// Only this tool's calls.
    #[serde(default)]
    tool: Option<String>,
    /// Only this outcome: `ok`, `failed`, `pending` or `unknown`, or what the policy step
    /// decided: `approved`, `refused` or `denied`.
    #[serde(default)]
    outcome: Option<String>,
    /// At most this many, 200 by default.
    #[serde(default)]
    limit: Option<usize>,
}

impl HistoryQuery {
    fn tool(&self) -> Option<&str> {
        self.tool.as_deref().filter(|t| !t.is_empty())
    }

    fn outcome(&self) -> Option<&str> {
        self.outcome.as_deref().filter(|o| !o.is_empty())
    }
}

/// The receipts `query` asks for, newest first.
async fn receipts(shared: &Shared, query: &HistoryQuery) -> Result<Vec<Receipt>, String> {
    let limit = query.limit.unwrap_or(200).min(MAX_HISTORY);
    let mut found =
        shared.journal.log(MAX_HISTORY, query.tool()).await.map_err(|e| e.to_string())?;
    found.reverse();
    let wanted = query.outcome();
    found.retain(|receipt| wanted.is_none_or(|wanted| matches_outcome(receipt, wanted)));
    found.truncate(limit);
    Ok(found)
}

/// `GET /history`.
pub(crate) async fn history_page(
    State(shared): State<Shared>,
    Extension(caller): Extension<Caller>,
    Query(query): Query<HistoryQuery>,
) -> Response {
    match receipts(&shared, &query).await {
        Ok(found) => {
            Html(page::history(&caller, &found, query.tool(), query.outcome())).into_response()
        }
        Err(error) => refusal(StatusCode::INTERNAL_SERVER_ERROR, &error),
    }
}

/// `GET /api/history`.
pub(crate) async fn history(
    State(shared): State<Shared>,
    Query(query): Query<HistoryQuery>,
) -> Response {
    match receipts(&shared, &query).await {
        Ok(found) => axum::Json(json!({"receipts": found})).into_response(),
        Err(error) => refusal(StatusCode::INTERNAL_SERVER_ERROR, &error),
    }
}

/// Where the event stream starts.
#[derive(Debug, Deserialize)]
pub(crate) struct EventsQuery {
    /// After this event (an id from `/api/waiting`, the page, or the stream); by default,
    /// after the last one.
    #[serde(default)]
    since: Option<String>,
}

/// `GET /api/events`: the events after `since` (or the `Last-Event-ID` a reconnecting
/// stream sends), then each as it comes. A stream that cannot be caught up (too far behind,
/// or from before a restart) gets `reload`.
pub(crate) async fn events(
    State(shared): State<Shared>,
    headers: HeaderMap,
    Query(query): Query<EventsQuery>,
) -> Sse<impl Stream<Item = Result<SseEvent, Infallible>>> {
    let resumed = headers.get("last-event-id").and_then(|v| v.to_str().ok()).map(str::to_owned);
    let (past, receiver) = shared.feed.since(resumed.or(query.since).as_deref());
    let shared_for_ids = Arc::clone(&shared);
    let sse = move |event: &Event| sse(&shared_for_ids, event);
    let head: Vec<SseEvent> = match past {
        Some(past) => past.iter().map(&sse).collect(),
        None => vec![SseEvent::default().event("reload").data("{}")],
    };
    let live = stream::unfold((receiver, sse.clone()), |(mut receiver, sse)| async move {
        match receiver.recv().await {
            Ok(event) => Some((sse(&event), (receiver, sse))),
            // Fell behind: the page reloads rather than miss a change.
            Err(tokio::sync::broadcast::error::RecvError::Lagged(_)) => {
                Some((SseEvent::default().event("reload").data("{}"), (receiver, sse)))
            }
            Err(tokio::sync::broadcast::error::RecvError::Closed) => None,
        }
    });
    Sse::new(stream::iter(head).chain(live).map(Ok)).keep_alive(KeepAlive::default())
}

fn sse(shared: &Shared, event: &Event) -> SseEvent {
    let id = shared.feed.id(event.seq);
    SseEvent::default().id(id).event(event.name).data(event.data.to_string())
}

/// `GET /assets/inbox.js`.
pub(crate) async fn script() -> Response {
    asset("text/javascript; charset=utf-8", include_str!("assets/inbox.js"))
}

/// `GET /assets/inbox.css`.
pub(crate) async fn style() -> Response {
    asset("text/css; charset=utf-8", include_str!("assets/inbox.css"))
}

fn asset(kind: &'static str, text: &'static str) -> Response {
    ([(header::CONTENT_TYPE, kind), (header::CACHE_CONTROL, "no-cache")], text).into_response()
}

/// Any other route.
pub(crate) async fn not_found() -> Response {
    refusal(StatusCode::NOT_FOUND, "no such page: the inbox has /, /history and /api/...")
}

/// A refusal, as JSON: `{"error": why}`.
fn refusal(status: StatusCode, why: &str) -> Response {
    (status, axum::Json(json!({"error": why}))).into_response()
}

/// A receipt's outcome in a word, as `toolwire log` shows it.
pub(crate) fn outcome_of(receipt: &Receipt) -> &'static str {
    crate::commands::journaled::outcome(&receipt.result)
}

/// Whether `receipt` has the outcome `wanted`, or its policy step decided it.
fn matches_outcome(receipt: &Receipt, wanted: &str) -> bool {
    outcome_of(receipt) == wanted
        || receipt.policy.as_ref().is_some_and(|policy| policy.outcome.as_str() == wanted)
}
