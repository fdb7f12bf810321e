//! What the clients do when the server fails: rate limits, errors, cut and slow streams,
//! unreadable replies, and aborts. Every run ends with a reason, and its history stays
//! balanced.

use std::time::Duration;

use crate::common::{Mock, PROVIDERS, Piece, Reply, balanced, events, fixture, weather};
use futures_util::future::join_all;
use toolwire::{AbortController, Provider};
use toolwire_agent::{Agent, ErrorKind, RetryPolicy, RunOutcome, StopReason};

fn error_kind(outcome: &RunOutcome) -> Option<ErrorKind> {
    match &outcome.stop {
        StopReason::ModelError(error) => Some(error.kind()),
        _ => None,
    }
}

async fn run_openai(mock: &Mock, stream: bool) -> RunOutcome {
    let client = mock
        .client(Provider::OpenAi)
        .stream(stream)
        .idle_timeout(Duration::from_millis(300))
        .timeout(Duration::from_millis(500));
    Agent::builder(client.build().expect("client"), weather(None)).build().run("weather?").await
}

/// A client of `provider` at `mock`, with short time limits.
fn client(mock: &Mock, provider: Provider, stream: bool) -> toolwire_agent::HttpClient {
    let client = mock.client(provider).stream(stream).idle_timeout(Duration::from_millis(400));
    client.timeout(Duration::from_millis(500)).build().expect("client")
}

#[tokio::test]
async fn a_429_is_retried_after_the_wait_its_retry_after_header_asks_for() {
    join_all(PROVIDERS.map(|(provider, folder)| async move {
        let limited = Reply::status(429, "rate limited").header("retry-after", "1");
        let mock = Mock::start(vec![limited, Reply::json(fixture(folder, "final.json"))]).await;
        let agent = Agent::builder(client(&mock, provider, false), weather(None)).build();
        let outcome = agent.run("weather?").await;
        assert!(outcome.is_finished(), "{folder}: {:?}", outcome.stop);
        let seen = mock.seen();
        assert_eq!(seen.len(), 2, "{folder}");
        let waited = seen[1].at - seen[0].at;
        assert!(
            waited >= Duration::from_millis(950),
            "{folder}: retried after {waited:?}, not the 1 s asked for"
        );
    }))
    .await;
}

#[tokio::test]
async fn a_500_is_retried_for_every_provider() {
    join_all(PROVIDERS.map(|(provider, folder)| async move {
        let mock = Mock::start(vec![
            Reply::status(500, "oops"),
            Reply::json(fixture(folder, "final.json")),
        ])
        .await;
        let outcome =
            Agent::builder(client(&mock, provider, false), weather(None)).build().run("hi").await;
        assert!(outcome.is_finished(), "{folder}: {:?}", outcome.stop);
        assert_eq!(mock.seen().len(), 2, "{folder}");
    }))
    .await;
}

#[tokio::test]
async fn openai_rate_limit_reset_headers_set_the_wait() {
    let limited = Reply::status(429, "rate limited")
        .header("x-ratelimit-remaining-requests", "0")
        .header("x-ratelimit-reset-requests", "400ms");
    let mock = Mock::start(vec![limited, Reply::json(fixture("openai", "final.json"))]).await;
    let outcome = run_openai(&mock, false).await;
    assert!(outcome.is_finished(), "{:?}", outcome.stop);
    let seen = mock.seen();
    assert!(
        seen[1].at - seen[0].at >= Duration::from_millis(380),
        "waited {:?}",
        seen[1].at - seen[0].at
    );
}

#[tokio::test]
async fn a_wait_longer_than_the_policy_allows_fails_at_once_saying_how_long() {
    let limited = Reply::status(429, "slow down").header("retry-after", "3600");
    let mock = Mock::start(vec![limited]).await;
    let outcome = run_openai(&mock, false).await;
    let StopReason::ModelError(error) = &outcome.stop else { panic!("{:?}", outcome.stop) };
    assert_eq!(error.kind(), ErrorKind::RateLimited);
    assert_eq!(error.retry_after(), Some(Duration::from_secs(3600)));
    assert_eq!(mock.seen().len(), 1);
}

#[tokio::test]
async fn a_500_is_retried_and_a_400_is_not() {
    let mock =
        Mock::start(vec![Reply::status(500, "oops"), Reply::json(fixture("openai", "final.json"))])
            .await;
    assert!(run_openai(&mock, false).await.is_finished());
    assert_eq!(mock.seen().len(), 2);

    let mock = Mock::start(vec![Reply::status(400, "bad request: tools[0]")]).await;
    let outcome = run_openai(&mock, false).await;
    let StopReason::ModelError(error) = &outcome.stop else { panic!("{:?}", outcome.stop) };
    assert_eq!((error.kind(), error.status()), (ErrorKind::Status, Some(400)));
    assert!(error.to_string().contains("bad request: tools[0]"), "{error}");
    assert_eq!(mock.seen().len(), 1);
}

#[tokio::test]
async fn retries_end_with_the_last_status() {
    let mock = Mock::start(vec![Reply::status(503, "down"); 5]).await;
    let client = mock.client(Provider::OpenAi).stream(false).retry(RetryPolicy {
        max_retries: 2,
        base_delay: Duration::from_millis(1),
        ..RetryPolicy::default()
    });
    let outcome =
        Agent::builder(client.build().expect("client"), weather(None)).build().run("hi").await;
    assert_eq!(error_kind(&outcome), Some(ErrorKind::Status));
    assert_eq!(mock.seen().len(), 3, "one attempt and two retries");
}

#[tokio::test]
async fn a_stream_cut_after_a_call_started_keeps_the_history_balanced() {
    for (provider, folder) in PROVIDERS {
        // Cut right after the first call is complete: it has run, the second never came.
        let complete_at = match provider {
            Provider::Responses => 8,
            Provider::Anthropic => 9,
            Provider::Gemini => 1,
            _ => 4,
        };
        let mut pieces: Vec<Piece> =
            events(folder).into_iter().take(complete_at + 1).map(Piece::Text).collect();
        pieces.push(Piece::Sleep(Duration::from_millis(50)));
        pieces.push(Piece::Cut);
        let mock = Mock::start(vec![Reply::sse(pieces)]).await;
        let client = mock.client(provider).build().expect("client");
        let outcome = Agent::builder(client, weather(None)).build().run("weather?").await;

        assert_eq!(
            error_kind(&outcome),
            Some(ErrorKind::StreamCut),
            "{folder}: {:?}",
            outcome.stop
        );
        assert_eq!(outcome.receipts.len(), 1, "{folder}: the call that completed ran");
        assert!(outcome.receipts[0].result.is_success(), "{folder}");
        assert!(
            balanced(provider, &outcome.state.messages),
            "{folder}: {:#?}",
            outcome.state.messages
        );
        assert_eq!(
            mock.seen().len(),
            1,
            "{folder}: a stream that reached the caller is not sent again"
        );
    }
}

#[tokio::test]
async fn a_stream_cut_before_anything_arrived_is_retried() {
    let cut = Reply::sse(vec![Piece::Cut]);
    let mock = Mock::start(vec![cut, Reply::sse_events(events("anthropic"))]).await;
    let client = mock.client(Provider::Anthropic).build().expect("client");
    let outcome = Agent::builder(client, weather(None)).max_turns(1).build().run("weather?").await;
    assert!(matches!(outcome.stop, StopReason::TurnLimit(1)), "{:?}", outcome.stop);
    assert_eq!(mock.seen().len(), 2);
}

/// Regression: a gateway that ends an Anthropic stream with OpenAI's `data: [DONE]` failed the
/// turn after its `message_stop`, as "an event's data is not JSON".
#[tokio::test]
async fn regression_an_anthropic_stream_followed_by_done_is_read_to_its_message_stop() {
    let mut events = events("anthropic");
    events.push("data: [DONE]\n\n".to_owned());
    let mock = Mock::start(vec![Reply::sse_events(events)]).await;
    let client =
        mock.client(Provider::Anthropic).retry(RetryPolicy::none()).build().expect("client");
    let outcome = Agent::builder(client, weather(None)).max_turns(1).build().run("weather?").await;
    assert!(matches!(outcome.stop, StopReason::TurnLimit(1)), "{:?}", outcome.stop);
    assert!(outcome.receipts.iter().all(|r| r.result.is_success()), "{:?}", outcome.receipts);
}

#[tokio::test]
async fn a_stream_that_ends_without_its_last_event_is_a_cut() {
    let mut events = events("openai");
    events.truncate(events.len() - 3); // no finish_reason, no usage chunk, no [DONE]
    let mock = Mock::start(vec![Reply::sse_events(events)]).await;
    let client = mock.client(Provider::OpenAi).retry(RetryPolicy::none()).build().expect("client");
    let outcome = Agent::builder(client, weather(None)).build().run("weather?").await;
    assert_eq!(error_kind(&outcome), Some(ErrorKind::StreamCut), "{:?}", outcome.stop);
    assert!(balanced(Provider::OpenAi, &outcome.state.messages));
}

#[tokio::test]
async fn a_slow_stream_times_out_and_a_steady_one_does_not() {
    join_all(PROVIDERS.map(|(provider, folder)| async move {
        let mut slow: Vec<Piece> = events(folder).into_iter().map(Piece::Text).collect();
        slow.insert(1, Piece::Sleep(Duration::from_secs(2)));
        let mock = Mock::start(vec![Reply::sse(slow)]).await;
        let outcome = run_streamed(&mock, provider).await;
        assert_eq!(error_kind(&outcome), Some(ErrorKind::Timeout), "{folder}: {:?}", outcome.stop);

        let mut steady = Vec::new();
        for event in events(folder) {
            steady.push(Piece::Sleep(Duration::from_millis(100)));
            steady.push(Piece::Text(event));
        }
        let mock = Mock::start(vec![Reply::sse(steady)]).await;
        let outcome = run_streamed(&mock, provider).await;
        assert!(matches!(outcome.stop, StopReason::TurnLimit(1)), "{folder}: {:?}", outcome.stop);
    }))
    .await;
}

async fn run_streamed(mock: &Mock, provider: Provider) -> RunOutcome {
    let client =
        mock.client(provider).idle_timeout(Duration::from_millis(400)).retry(RetryPolicy::none());
    Agent::builder(client.build().expect("client"), weather(None))
        .max_turns(1)
        .build()
        .run("weather?")
        .await
}

#[tokio::test]
async fn a_reply_that_is_not_the_providers_format_ends_the_run_with_a_reason() {
    let mock = Mock::start(vec![Reply::json("<html>bad gateway</html>".into())]).await;
    assert_eq!(error_kind(&run_openai(&mock, false).await), Some(ErrorKind::InvalidReply));

    let mock = Mock::start(vec![Reply::json(r#"{"choices": []}"#.into())]).await;
    assert_eq!(error_kind(&run_openai(&mock, false).await), Some(ErrorKind::InvalidReply));

    let garbage = Reply::sse(vec![Piece::Text("data: {not json\n\n".into())]);
    let mock = Mock::start(vec![garbage]).await;
    assert_eq!(error_kind(&run_openai(&mock, true).await), Some(ErrorKind::InvalidReply));

    let mock = Mock::start(vec![Reply::json(
        r#"{"type":"error","error":{"type":"overloaded_error","message":"Overloaded"}}"#.into(),
    )])
    .await;
    let client = mock.client(Provider::Anthropic).stream(false).build().expect("client");
    let outcome = Agent::builder(client, weather(None)).build().run("hi").await;
    assert_eq!(error_kind(&outcome), Some(ErrorKind::Provider), "{:?}", outcome.stop);
}

#[tokio::test]
async fn an_abort_mid_stream_ends_the_run_aborted_and_balanced() {
    let mut pieces: Vec<Piece> =
        events("anthropic").into_iter().take(10).map(Piece::Text).collect();
    pieces.push(Piece::Sleep(Duration::from_secs(30)));
    let mock = Mock::start(vec![Reply::sse(pieces)]).await;
    let client = mock.client(Provider::Anthropic).build().expect("client");
    let agent = Agent::builder(client, weather(None)).build();
    let controller = AbortController::new();
    let run = tokio::spawn(agent.run("weather?").signal(controller.signal()).into_future());
    tokio::time::sleep(Duration::from_millis(200)).await;
    controller.abort_with("user pressed stop");
    let outcome = tokio::time::timeout(Duration::from_secs(5), run)
        .await
        .expect("aborted promptly")
        .expect("run task");
    assert!(matches!(outcome.stop, StopReason::Aborted), "{:?}", outcome.stop);
    assert!(
        balanced(Provider::Anthropic, &outcome.state.messages),
        "{:#?}",
        outcome.state.messages
    );
}

use std::future::IntoFuture;

#[tokio::test]
async fn regression_an_anthropic_block_that_is_not_an_object_is_an_invalid_reply_not_a_panic() {
    let start = r#"{"type":"content_block_start","index":0,"content_block":"text"}"#;
    let delta =
        r#"{"type":"content_block_delta","index":0,"delta":{"type":"text_delta","text":"hi"}}"#;
    let pieces = [start, delta].map(|data| Piece::Text(format!("event: x\ndata: {data}\n\n")));
    let mock = Mock::start(vec![Reply::sse(pieces.to_vec())]).await;
    let client =
        mock.client(Provider::Anthropic).retry(RetryPolicy::none()).build().expect("client");
    let outcome = Agent::builder(client, weather(None)).build().run("hi").await;
    assert_eq!(error_kind(&outcome), Some(ErrorKind::InvalidReply), "{:?}", outcome.stop);
}

/// A model client that says it speaks a shape no model is reached by.
struct Describer;

impl toolwire_agent::ModelClient for Describer {
    fn provider(&self) -> Provider {
        Provider::Mcp
    }

    fn model(&self) -> &str {
        "none"
    }

    fn complete<'a>(
        &'a self,
        _request: toolwire_agent::ModelRequest<'a>,
        _sink: &'a mut dyn toolwire_agent::TurnSink,
    ) -> toolwire_agent::BoxFuture<'a, Result<toolwire_agent::ModelTurn, toolwire_agent::Error>>
    {
        Box::pin(async { panic!("a run of a provider that runs no model never asks it") })
    }
}

#[tokio::test]
async fn regression_a_provider_that_runs_no_model_is_a_config_error_not_openai() {
    // The HTTP client of such a provider is refused when it is built.
    let built = toolwire_agent::HttpClient::builder(Provider::Mcp, "m").build();
    let error = built.expect_err("mcp runs no model");
    assert_eq!(error.kind(), ErrorKind::Config);
    assert!(error.to_string().contains("runs no model"), "{error}");
    let spec = toolwire_agent::HttpClient::from_spec("flat_function:m").expect_err("no model");
    assert_eq!(spec.kind(), ErrorKind::Config);

    // A client of its own that says so ends its run at once, with no message sent.
    let outcome = Agent::builder(Describer, weather(None)).build().run("hello").await;
    assert_eq!(error_kind(&outcome), Some(ErrorKind::Config), "{:?}", outcome.stop);
    assert!(outcome.state.messages.is_empty());
}
