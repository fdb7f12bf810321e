//! Each provider against a local mock server replaying its documented payloads: a normal
//! turn, parallel calls, a streamed turn, and calls that start while the stream goes on.

use crate::common;

use std::sync::Arc;
use std::time::Duration;

use crate::common::{Mock, PROVIDERS, Reply, balanced, events, fixture, weather};
use serde_json::Value;
use tokio::sync::Notify;
use toolwire::Provider;
use toolwire_agent::{Agent, StopReason};

/// Where each provider's second request carries the first result.
fn result_text(provider: Provider, body: &Value) -> String {
    let pointer = match provider {
        Provider::Responses => "/input/2/output",
        Provider::Anthropic => "/messages/2/content/0/content",
        Provider::Gemini => "/contents/2/parts/0/functionResponse/response/output",
        _ => "/messages/3/content", // after the system message
    };
    body.pointer(pointer).and_then(Value::as_str).unwrap_or_default().to_owned()
}

#[tokio::test]
async fn a_normal_turn_runs_the_call_and_sends_its_result_back() {
    for (provider, folder) in PROVIDERS {
        let replies = vec![
            Reply::json(fixture(folder, "normal.json")),
            Reply::json(fixture(folder, "final.json")),
        ];
        let mock = Mock::start(replies).await;
        let client = mock.client(provider).stream(false).build().expect("client");
        let agent = Agent::builder(client, weather(None)).system("be brief").build();
        let outcome = agent.run("What's the weather like?").await;

        assert!(outcome.is_finished(), "{folder}: {:?}", outcome.stop);
        assert_eq!(outcome.receipts.len(), 1, "{folder}");
        assert!(outcome.receipts[0].result.is_success(), "{folder}");
        assert!(
            outcome.text.contains("degrees") || outcome.text.contains("°C"),
            "{folder}: {}",
            outcome.text
        );
        assert!(
            balanced(provider, &outcome.state.messages),
            "{folder}: {:#?}",
            outcome.state.messages
        );
        let seen = mock.seen();
        assert_eq!(seen.len(), 2, "{folder}");
        assert!(
            result_text(provider, &seen[1].body).starts_with("14 degrees in"),
            "{folder}: {}",
            seen[1].body
        );
        let tools = match provider {
            Provider::Gemini => "/tools/0/functionDeclarations",
            _ => "/tools",
        };
        assert_eq!(
            seen[0].body.pointer(tools).and_then(Value::as_array).map(Vec::len),
            Some(1),
            "{folder}: tools sent"
        );
        let system = match provider {
            Provider::Responses => "/instructions",
            Provider::Anthropic => "/system",
            Provider::Gemini => "/systemInstruction/parts/0/text",
            _ => "/messages/0/content",
        };
        assert_eq!(
            seen[0].body.pointer(system),
            Some(&Value::from("be brief")),
            "{folder}: system prompt"
        );
    }
}

#[tokio::test]
async fn each_provider_gets_its_endpoint_and_authentication() {
    let expected = [
        (Provider::OpenAi, "/chat/completions", "authorization", "Bearer test-key"),
        (Provider::Responses, "/responses", "authorization", "Bearer test-key"),
        (Provider::Anthropic, "/messages", "x-api-key", "test-key"),
        (Provider::Gemini, "/models/test-model:generateContent", "x-goog-api-key", "test-key"),
    ];
    for (provider, path, header, value) in expected {
        let folder = common::PROVIDERS
            .iter()
            .find(|(p, _)| *p == provider)
            .map(|(_, f)| *f)
            .unwrap_or_default();
        let mock = Mock::start(vec![Reply::json(fixture(folder, "final.json"))]).await;
        let client = mock.client(provider).stream(false).build().expect("client");
        let outcome = Agent::builder(client, weather(None)).build().run("hi").await;
        assert!(outcome.is_finished(), "{folder}: {:?}", outcome.stop);
        let seen = &mock.seen()[0];
        assert_eq!(seen.path, path, "{folder}");
        assert_eq!(seen.headers.get(header).and_then(|v| v.to_str().ok()), Some(value), "{folder}");
    }
}

#[tokio::test]
async fn parallel_calls_each_get_a_result_in_order() {
    for (provider, folder) in PROVIDERS {
        let replies = vec![
            Reply::json(fixture(folder, "parallel.json")),
            Reply::json(fixture(folder, "final.json")),
        ];
        let mock = Mock::start(replies).await;
        let client = mock.client(provider).stream(false).build().expect("client");
        let outcome = Agent::builder(client, weather(None)).build().run("Paris and Bogotá?").await;

        assert!(outcome.is_finished(), "{folder}: {:?}", outcome.stop);
        assert_eq!(outcome.receipts.len(), 2, "{folder}");
        let texts: Vec<&str> = outcome.receipts.iter().filter_map(|r| r.result.text()).collect();
        assert!(texts[0] != texts[1], "{folder}: two different locations: {texts:?}");
        assert!(
            balanced(provider, &outcome.state.messages),
            "{folder}: {:#?}",
            outcome.state.messages
        );
    }
}

#[tokio::test]
async fn a_streamed_turn_is_assembled_and_its_calls_run() {
    for (provider, folder) in PROVIDERS {
        let mock = Mock::start(vec![Reply::sse_events(events(folder))]).await;
        let client = mock.client(provider).build().expect("client");
        let deltas = Arc::new(std::sync::Mutex::new(String::new()));
        let heard = Arc::clone(&deltas);
        let agent = Agent::builder(client, weather(None))
            .max_turns(1)
            .on_event(move |event| {
                if let toolwire_agent::AgentEvent::TextDelta(text) = event {
                    heard.lock().expect("deltas").push_str(text);
                }
            })
            .build();
        let outcome = agent.run("Paris and Bogotá?").await;

        assert!(matches!(outcome.stop, StopReason::TurnLimit(1)), "{folder}: {:?}", outcome.stop);
        assert_eq!(outcome.receipts.len(), 2, "{folder}");
        assert!(
            outcome.receipts.iter().all(|r| r.result.is_success()),
            "{folder}: {:?}",
            outcome.receipts
        );
        assert!(!outcome.text.is_empty(), "{folder}");
        assert_eq!(*deltas.lock().expect("deltas"), outcome.text, "{folder}");
        assert!(
            balanced(provider, &outcome.state.messages),
            "{folder}: {:#?}",
            outcome.state.messages
        );
        let asked = &mock.seen()[0];
        let streamed =
            asked.body["stream"] == true || asked.path.ends_with(":streamGenerateContent?alt=sse");
        assert!(
            streamed,
            "{folder}: the request asked for a stream: {} {}",
            asked.path, asked.body
        );
    }
}

/// The event after which the first call's arguments are complete, in each recorded stream.
fn first_call_complete(provider: Provider) -> usize {
    match provider {
        // response.output_item.done: only there is the call's id final (the server may give
        // the item another call_id than in output_item.added).
        Provider::Responses => 8,
        Provider::Anthropic => 9, // content_block_stop of the first tool_use
        Provider::Gemini => 1,    // the first whole functionCall part
        _ => 4,                   // the second call's first delta
    }
}

#[tokio::test]
async fn a_call_starts_while_the_model_is_still_writing() {
    for (provider, folder) in PROVIDERS {
        // The server holds the rest of the stream until the first call's handler runs: if
        // calls waited for the end of the turn, this run would never finish.
        let started = Arc::new(Notify::new());
        let mut pieces: Vec<common::Piece> =
            events(folder).into_iter().map(common::Piece::Text).collect();
        pieces.insert(first_call_complete(provider) + 1, common::Piece::Gate(Arc::clone(&started)));
        let mock = Mock::start(vec![Reply::sse(pieces)]).await;
        let client = mock.client(provider).build().expect("client");
        let agent = Agent::builder(client, weather(Some(started))).max_turns(1).build();
        let outcome =
            tokio::time::timeout(Duration::from_secs(10), agent.run("Paris and Bogotá?")).await;
        let outcome = outcome.unwrap_or_else(|_| {
            panic!("{folder}: the first call did not start before the stream ended")
        });
        assert_eq!(outcome.receipts.len(), 2, "{folder}");
        assert!(outcome.receipts.iter().all(|r| r.result.is_success()), "{folder}");
    }
}

#[tokio::test]
async fn with_streaming_dispatch_off_no_call_starts_before_the_turn_ends() {
    let started = Arc::new(Notify::new());
    let mut pieces: Vec<common::Piece> =
        events("anthropic").into_iter().map(common::Piece::Text).collect();
    pieces.insert(10, common::Piece::Gate(Arc::clone(&started)));
    let mock = Mock::start(vec![Reply::sse(pieces)]).await;
    let client = mock.client(Provider::Anthropic).build().expect("client");
    let agent = Agent::builder(client, weather(Some(started)))
        .streaming_dispatch(false)
        .max_turns(1)
        .build();
    let run = tokio::time::timeout(Duration::from_millis(500), agent.run("weather?")).await;
    assert!(run.is_err(), "a call ran before the turn ended");
}

#[tokio::test]
async fn a_server_that_ignores_the_stream_flag_is_read_as_a_whole_reply() {
    for (provider, folder) in PROVIDERS {
        let mock = Mock::start(vec![Reply::json(fixture(folder, "parallel.json"))]).await;
        let client = mock.client(provider).build().expect("client");
        let outcome =
            Agent::builder(client, weather(None)).max_turns(1).build().run("weather?").await;
        assert!(matches!(outcome.stop, StopReason::TurnLimit(1)), "{folder}: {:?}", outcome.stop);
        assert_eq!(outcome.receipts.len(), 2, "{folder}");
    }
}

#[tokio::test]
async fn regression_a_responses_call_whose_id_changes_runs_once_under_the_final_id() {
    // The first call's item is announced as call_early and finished as call_12345...: the
    // same call, which once was reported under both ids and run twice.
    let pieces: Vec<common::Piece> = events("responses")
        .into_iter()
        .map(|event| {
            let announced =
                event.contains("\"response.output_item.added\"") && event.contains("fc_12345xyz");
            let event = if announced { rename_call_id(&event) } else { event };
            common::Piece::Text(event)
        })
        .collect();
    let mock = Mock::start(vec![Reply::sse(pieces)]).await;
    let client = mock.client(Provider::Responses).build().expect("client");
    let runs = Arc::new(std::sync::atomic::AtomicUsize::new(0));
    let counter = Arc::clone(&runs);
    let tool = toolwire::Tool::define("get_weather")
        .parameters(
            serde_json::json!({"type": "object", "properties": {"location": {"type": "string"}}}),
        )
        .execute_sync(move |_, _| {
            counter.fetch_add(1, std::sync::atomic::Ordering::SeqCst);
            toolwire::ToolResult::ok(serde_json::json!({"temp": 14}), "14 degrees")
        })
        .build()
        .expect("the tool builds");
    let registry = toolwire::Registry::builder().register(tool).seal().expect("registry");
    let outcome =
        Agent::builder(client, registry).max_turns(1).build().run("Paris and Bogotá?").await;
    assert_eq!(runs.load(std::sync::atomic::Ordering::SeqCst), 2, "two calls, each run once");
    let ids: Vec<_> = outcome.receipts.iter().filter_map(|r| r.call_id.as_deref()).collect();
    assert_eq!(ids.len(), 2, "{ids:?}");
    assert!(!ids.contains(&"call_early"), "the final id is used: {ids:?}");
}

/// `event` with its item's `call_id` replaced by `call_early`.
fn rename_call_id(event: &str) -> String {
    let start = event.find("\"call_id\":\"").expect("a call_id") + "\"call_id\":\"".len();
    let end = start + event[start..].find('"').expect("the id ends");
    format!("{}call_early{}", &event[..start], &event[end..])
}

#[tokio::test]
async fn each_provider_reports_the_tokens_a_turn_used_whole_or_streamed() {
    use toolwire_agent::{IgnoreTurn, ModelClient, ModelRequest, Usage};
    // The counts the recorded payloads carry: (whole reply, stream).
    let expected = |provider| match provider {
        Provider::Anthropic => [(472, 41), (472, 89)],
        Provider::Gemini => [(65, 12), (65, 30)],
        Provider::Responses => [(291, 23), (291, 58)],
        _ => [(82, 17), (82, 41)],
    };
    for (provider, folder) in PROVIDERS {
        let replies =
            vec![Reply::json(fixture(folder, "normal.json")), Reply::sse_events(events(folder))];
        let mock = Mock::start(replies).await;
        let client = mock.client(provider).build().expect("client");
        let signal = toolwire::AbortSignal::default();
        let messages = [serde_json::json!({"role": "user", "content": "Paris?"})];
        for (input, output) in expected(provider) {
            let request = ModelRequest::new(&messages, &signal);
            let turn = client.complete(request, &mut IgnoreTurn).await.expect("a turn");
            let usage = Usage::new(Some(input), Some(output));
            assert_eq!(turn.usage, usage, "{folder}");
        }
        if provider == Provider::OpenAi {
            let asked = &mock.seen()[1];
            assert_eq!(asked.body["stream_options"]["include_usage"], true, "{}", asked.body);
        }
    }
}
