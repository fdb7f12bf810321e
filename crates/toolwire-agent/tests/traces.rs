//! The run's spans, as the OpenTelemetry GenAI conventions describe an agent: one
//! `invoke_agent` span per run, a `chat {model}` span per model request inside it, and the
//! tool calls' `execute_tool` spans inside those.

use crate::common::{Scripted, weather};
use serde_json::json;
use toolwire::ToolCall;
use toolwire_agent::Agent;
use toolwire_test_support::spans::{Closed, traced};

#[test]
fn a_run_is_one_invoke_agent_span_with_a_chat_span_per_request_and_its_tools_inside() {
    let call = ToolCall::new("call_1", "get_weather", json!({"location": "Paris"}));
    let (outcome, spans) = traced(|| {
        // One thread, so that the spawned calls see the test's subscriber too.
        let runtime =
            tokio::runtime::Builder::new_current_thread().enable_all().build().expect("a runtime");
        runtime.block_on(async {
            Agent::builder(Scripted::new(vec![vec![call]]), weather(None)).build().run("go").await
        })
    });
    assert!(outcome.is_finished(), "{:?}", outcome.stop);

    let agents: Vec<&Closed> = spans.iter().filter(|s| s.name == "invoke_agent").collect();
    assert_eq!(agents.len(), 1, "{spans:#?}");
    let agent = &agents[0].fields;
    assert_eq!(agent["gen_ai.operation.name"], "invoke_agent");
    assert_eq!(agent["gen_ai.provider.name"], "openai");
    assert_eq!(agent["gen_ai.request.model"], "scripted");
    assert_eq!(agent["gen_ai.conversation.id"], outcome.state.run_id);

    let chats: Vec<&Closed> = spans.iter().filter(|s| s.name == "chat").collect();
    assert_eq!(chats.len(), 2, "one request with the call, one after its result: {spans:#?}");
    for chat in &chats {
        assert_eq!(chat.parent.as_deref(), Some("invoke_agent"));
        assert_eq!(chat.fields["otel.name"], "chat scripted");
        assert_eq!(chat.fields["otel.kind"], "client");
        assert_eq!(chat.fields["gen_ai.operation.name"], "chat");
    }
    let reasons: Vec<&str> =
        chats.iter().map(|c| c.fields["gen_ai.response.finish_reasons"].as_str()).collect();
    assert!(reasons.contains(&"tool_calls") && reasons.contains(&"stop"), "{reasons:?}");

    let tool = spans.iter().find(|s| s.name == "execute_tool").expect("the tool's span");
    assert_eq!(tool.fields["gen_ai.tool.name"], "get_weather");
    assert_eq!(tool.fields["gen_ai.tool.call.id"], "call_1");
    // Regression: a call started while the reply streamed was spawned outside any span, so
    // its span was a root of its own.
    assert_eq!(tool.parent.as_deref(), Some("chat"), "the request that made it: {tool:?}");
}

#[test]
fn a_chat_span_has_the_reported_tokens_and_the_run_measures_its_requests() {
    use crate::common::{Mock, Reply, fixture};
    use toolwire::Provider;

    let (outcome, spans) = traced(|| {
        let runtime =
            tokio::runtime::Builder::new_current_thread().enable_all().build().expect("a runtime");
        runtime.block_on(async {
            let replies = vec![
                Reply::json(fixture("openai", "normal.json")),
                Reply::json(fixture("openai", "final.json")),
            ];
            let mock = Mock::start(replies).await;
            let client = mock.client(Provider::OpenAi).build().expect("client");
            Agent::builder(client, weather(None)).build().run("Paris?").await
        })
    });
    assert!(outcome.is_finished(), "{:?}", outcome.stop);
    let chats: Vec<&Closed> = spans.iter().filter(|s| s.name == "chat").collect();
    assert_eq!(chats.len(), 2, "{spans:#?}");
    let first = &chats[0];
    assert_eq!(first.fields["gen_ai.usage.input_tokens"], "82");
    assert_eq!(first.fields["gen_ai.usage.output_tokens"], "17");
    let metric = |span: &Closed, name: &str| -> Vec<std::collections::BTreeMap<String, String>> {
        span.metrics.iter().filter(|m| m["metric"] == name).cloned().collect()
    };
    let tokens = metric(first, "gen_ai.client.token.usage");
    let counted: Vec<(&str, &str)> =
        tokens.iter().map(|m| (m["gen_ai.token.type"].as_str(), m["value"].as_str())).collect();
    assert_eq!(counted, [("input", "82"), ("output", "17")]);
    for token in &tokens {
        assert_eq!(token["gen_ai.operation.name"], "chat");
        assert_eq!(token["gen_ai.provider.name"], "openai");
        assert_eq!(token["gen_ai.request.model"], "test-model");
    }
    for chat in &chats {
        let [duration] = metric(chat, "gen_ai.client.operation.duration").try_into().expect("one");
        assert_eq!(duration["gen_ai.provider.name"], "openai");
        assert!(!duration.contains_key("error.type"), "{duration:?}");
    }
    let agent = spans.iter().find(|s| s.name == "invoke_agent").expect("the run's span");
    let [run] = metric(agent, "gen_ai.invoke_agent.duration").try_into().expect("one");
    assert_eq!(run["gen_ai.operation.name"], "invoke_agent");
    assert_eq!(run["gen_ai.request.model"], "test-model");
    assert!(!run.contains_key("error.type"), "{run:?}");
}

#[test]
fn a_failed_request_marks_its_chat_and_its_run_with_the_kind_of_failure() {
    use crate::common::{Mock, Reply};
    use toolwire::Provider;

    let (outcome, spans) = traced(|| {
        let runtime =
            tokio::runtime::Builder::new_current_thread().enable_all().build().expect("a runtime");
        runtime.block_on(async {
            let mock =
                Mock::start(vec![Reply::status(400, r#"{"error": {"message": "bad"}}"#)]).await;
            let client = mock.client(Provider::OpenAi).build().expect("client");
            Agent::builder(client, weather(None)).build().run("Paris?").await
        })
    });
    assert!(
        matches!(outcome.stop, toolwire_agent::StopReason::ModelError(_)),
        "{:?}",
        outcome.stop
    );
    for name in ["chat", "invoke_agent"] {
        let span = spans.iter().find(|s| s.name == name).expect("the span");
        assert_eq!(span.fields["error.type"], "status", "{span:?}");
        assert_eq!(span.fields["otel.status_code"], "ERROR");
        let [measured] = span.metrics.as_slice() else { panic!("one metric: {span:?}") };
        assert_eq!(measured["error.type"], "status");
    }
}
