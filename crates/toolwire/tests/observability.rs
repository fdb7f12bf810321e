//! One `tracing` span per invocation, named and labelled as the OpenTelemetry GenAI
//! conventions describe a tool execution, and the debug steps' child span.

use serde_json::{Value, json};
use toolwire::{Registry, Tool, ToolResult};
use tracing::debug;

use crate::common::spans::{self, Closed};

/// Runs `body` on a current-thread runtime under a capturing subscriber.
fn traced<F: std::future::Future>(body: F) -> (F::Output, Vec<Closed>) {
    spans::traced(|| {
        let runtime = tokio::runtime::Builder::new_current_thread().enable_time().build().unwrap();
        runtime.block_on(body)
    })
}

fn registry() -> Registry {
    let weather = Tool::define("get_weather")
        .description("The weather in a city")
        .execute(|args: Value, _| async move { ToolResult::ok(args, "sunny") })
        .debug_steps(|result, _ctx| debug!(success = result.is_success(), "checked the forecast"))
        .build()
        .unwrap();
    let sync = Tool::define("sync_echo")
        .execute_sync(|args: Value, _| ToolResult::ok(args, "echo"))
        .build()
        .unwrap();
    Registry::builder().register(weather).register(sync).seal().unwrap()
}

#[test]
fn every_invocation_has_one_execute_tool_span_with_the_gen_ai_attributes() {
    let registry = registry();
    let (receipts, spans) = traced(async {
        vec![
            registry.invoke("get_weather", json!({"city": "Oslo"})).call_id("call_a").await,
            registry.invoke("sync_echo", json!({})).await,
            registry.invoke("nope", json!({})).call_id("call_c").await,
        ]
    });
    let invocations: Vec<&Closed> = spans.iter().filter(|s| s.name == "execute_tool").collect();
    assert_eq!(invocations.len(), 3, "{spans:#?}");
    for receipt in &receipts {
        let id = receipt.invocation_id.to_string();
        let span = invocations.iter().find(|s| s.fields.get("toolwire.invocation_id") == Some(&id));
        let span = span.unwrap_or_else(|| panic!("a span for {id}: {spans:#?}"));
        let tool = &*receipt.tool;
        assert_eq!(span.fields["otel.name"], format!("execute_tool {tool}"));
        assert_eq!(span.fields["otel.kind"], "internal");
        assert_eq!(span.fields["gen_ai.operation.name"], "execute_tool");
        assert_eq!(span.fields["gen_ai.tool.name"], tool);
        assert_eq!(span.fields["gen_ai.tool.type"], "function");
        let outcome = receipt.result.failure_kind().map_or("success", |k| k.as_str());
        assert_eq!(span.fields["toolwire.outcome"], outcome);
        match receipt.result.failure_kind() {
            Some(kind) => {
                assert_eq!(span.fields["error.type"], kind.as_str());
                assert_eq!(span.fields["otel.status_code"], "ERROR");
            }
            None => assert!(!span.fields.contains_key("error.type"), "{span:?}"),
        }
        match &receipt.call_id {
            Some(call_id) => assert_eq!(span.fields["gen_ai.tool.call.id"], **call_id),
            None => assert!(!span.fields.contains_key("gen_ai.tool.call.id")),
        }
    }
    let weather = invocations.iter().find(|s| s.fields["gen_ai.tool.name"] == "get_weather");
    let weather = weather.expect("the weather span");
    assert_eq!(weather.fields["gen_ai.tool.description"], "The weather in a city");
    let unknown = invocations.iter().find(|s| s.fields["gen_ai.tool.name"] == "nope");
    assert_eq!(unknown.expect("the unknown tool's span").fields["error.type"], "unknown_tool");
}

#[test]
fn a_call_that_waits_for_an_answer_is_not_an_error() {
    let ask = Tool::define("deploy")
        .needs_approval(true)
        .execute_sync(|args: Value, _| ToolResult::ok(args, "deployed"))
        .build()
        .unwrap();
    let registry = Registry::builder().register(ask).seal().unwrap();
    let (receipt, spans) = traced(async { registry.invoke("deploy", json!({})).await });
    assert!(receipt.result.pending_request().is_some());
    let span = spans.iter().find(|s| s.name == "execute_tool").expect("a span");
    assert_eq!(span.fields["toolwire.outcome"], "pending");
    assert!(!span.fields.contains_key("error.type"), "{span:?}");
}

#[test]
fn debug_steps_record_into_a_child_span_of_the_invocation() {
    let registry = registry();
    let (_, spans) = traced(async { registry.invoke("get_weather", json!({})).await });
    let steps = spans.iter().find(|s| s.name == "toolwire.debug_steps").expect("a debug span");
    assert_eq!(steps.parent.as_deref(), Some("execute_tool"));
    assert_eq!(steps.events, ["checked the forecast"]);
}
