//! One `tracing` span per invocation, named and labelled as the OpenTelemetry GenAI
//! conventions describe a tool execution, and the debug steps' child span.

use serde_json::{Value, json};
use toolwire::{Registry, Tool, ToolResult};
use tracing::debug;

use toolwire_test_support::spans::{self, Closed};

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

/// The spans named `execute_tool`, by the tool they ran.
fn span_of<'a>(spans: &'a [Closed], tool: &str) -> &'a Closed {
    let found =
        spans.iter().find(|s| s.name == "execute_tool" && s.fields["gen_ai.tool.name"] == tool);
    found.unwrap_or_else(|| panic!("no execute_tool span of {tool}: {spans:#?}"))
}

#[test]
fn every_invocation_reports_its_duration_by_tool_and_error_type() {
    let registry = registry();
    let (_, spans) = traced(async {
        registry.invoke("get_weather", json!({})).await;
        registry.invoke("sync_echo", json!({})).await;
        registry.invoke("nope", json!({})).await;
    });
    for (tool, error) in
        [("get_weather", None), ("sync_echo", None), ("nope", Some("unknown_tool"))]
    {
        let span = span_of(&spans, tool);
        let [metric] = span.metrics.as_slice() else {
            panic!("one measurement per invocation: {span:#?}");
        };
        assert_eq!(metric["metric"], "gen_ai.execute_tool.duration");
        assert_eq!(metric["gen_ai.operation.name"], "execute_tool");
        assert_eq!(metric["gen_ai.tool.name"], tool);
        assert_eq!(metric["gen_ai.tool.type"], "function");
        assert_eq!(metric.get("error.type").map(String::as_str), error, "{metric:?}");
        let seconds: f64 = metric["value"].parse().expect("seconds");
        assert!((0.0..10.0).contains(&seconds), "{seconds}");
    }
}

#[test]
fn the_policy_step_puts_its_verdict_on_the_span() {
    let tool = |name: &str| {
        Tool::define(name)
            .execute_sync(|args: Value, _| ToolResult::ok(args, "done"))
            .build()
            .unwrap()
    };
    let registry = Registry::builder()
        .register(tool("read"))
        .register(tool("wipe"))
        .register(tool("deploy"))
        .policy_sync(|tool, _, _| match tool.name() {
            "wipe" => toolwire::policy::Decision::Deny("never".into()),
            "deploy" => {
                toolwire::policy::Decision::Ask(toolwire::Request::new("approval", "deploy?"))
            }
            _ => toolwire::policy::Decision::Allow,
        })
        .seal()
        .unwrap();
    let (_, spans) = traced(async {
        registry.invoke("read", json!({})).await;
        registry.invoke("wipe", json!({})).await;
        let parked = registry.invoke("deploy", json!({})).call_id("c1").await;
        let id = parked.result.pending_request().expect("parked").id.clone();
        let forged = toolwire::Answer::accept(format!("{id}x"), Value::Null);
        registry.invoke("deploy", json!({})).call_id("c1").answer(forged).await;
        let approved = toolwire::Answer::accept(id, Value::Null);
        let done = registry.invoke("deploy", json!({})).call_id("c1").answer(approved).await;
        assert!(done.result.is_success(), "{:?}", done.result);
    });
    let verdicts: Vec<(&str, &str)> = spans
        .iter()
        .filter(|s| s.name == "execute_tool")
        .map(|s| (s.fields["gen_ai.tool.name"].as_str(), s.fields["toolwire.policy"].as_str()))
        .collect();
    let expected = [
        ("read", "allowed"),
        ("wipe", "denied"),
        ("deploy", "asked"),
        ("deploy", "refused"),
        ("deploy", "approved"),
    ];
    assert_eq!(verdicts, expected);
}

#[test]
fn arguments_and_results_go_on_the_span_only_when_content_is_recorded() {
    let registry = registry();
    let (_, quiet) = traced(async { registry.invoke("sync_echo", json!({"secret": 1})).await });
    let span = span_of(&quiet, "sync_echo");
    assert!(!span.fields.contains_key("gen_ai.tool.call.arguments"), "{span:?}");
    assert!(!span.fields.contains_key("gen_ai.tool.call.result"), "{span:?}");

    toolwire::telemetry::record_content(true);
    let long = "x".repeat(10_000);
    let (_, recorded) = traced(async {
        registry.invoke("sync_echo", json!({"city": "Oslo"})).await;
        registry.invoke("get_weather", json!({"note": long})).await;
    });
    toolwire::telemetry::record_content(false);
    let span = span_of(&recorded, "sync_echo");
    assert_eq!(span.fields["gen_ai.tool.call.arguments"], r#"{"city":"Oslo"}"#);
    assert_eq!(span.fields["gen_ai.tool.call.result"], r#"{"city":"Oslo"}"#);
    let clipped = &span_of(&recorded, "get_weather").fields["gen_ai.tool.call.arguments"];
    assert!(clipped.ends_with('…'), "{clipped}");
    assert!(clipped.len() <= toolwire::telemetry::CONTENT_LIMIT + 3, "{}", clipped.len());
}

#[test]
fn a_receipt_carries_the_link_its_exporter_reads_off_the_span() {
    fn reader(span: &tracing::Span) -> Option<toolwire::telemetry::TraceLink> {
        let id = span.id()?.into_u64().to_be_bytes();
        Some(toolwire::telemetry::TraceLink::new([7; 16], id))
    }
    toolwire::telemetry::link_receipts(reader);
    let registry = registry();
    let (receipts, spans) = traced(async {
        vec![
            registry.invoke("get_weather", json!({})).await,
            registry.invoke("nope", json!({})).await,
        ]
    });
    assert_eq!(spans.iter().filter(|s| s.name == "execute_tool").count(), 2);
    for receipt in &receipts {
        let link = receipt.trace.as_deref().unwrap_or_else(|| panic!("a link: {receipt:?}"));
        assert_eq!(link.trace_id, [7; 16]);
        assert_ne!(link.span_id, [0; 8]);
        let json = serde_json::to_value(receipt).unwrap();
        assert_eq!(json["trace"]["trace_id"], "07".repeat(16));
    }
    assert_ne!(receipts[0].trace, receipts[1].trace, "each invocation has its own span");
}

#[test]
fn a_span_records_each_part_by_kind_mime_type_and_size_never_its_bytes() {
    use toolwire::media::Part;
    let png = b"\x89PNG\r\n\x1a\n-some-picture".to_vec();
    let size = png.len();
    let tool = Tool::define("screenshot")
        .execute_sync(move |_, _| {
            ToolResult::ok(json!({"w": 1}), "the page")
                .with_parts(vec![Part::image("image/png", png.clone()), Part::text("below")])
        })
        .build()
        .unwrap();
    let registry = Registry::builder().register(tool).seal().unwrap();
    let (receipt, spans) = traced(async { registry.invoke("screenshot", json!({})).await });
    assert!(receipt.result.is_success());
    let span = spans.iter().find(|s| s.name == "execute_tool").expect("the span");
    assert_eq!(
        span.fields["toolwire.result.parts"],
        format!("image image/png {size} bytes; text 5 bytes")
    );
    let everything = format!("{spans:?}");
    assert!(!everything.contains("iVBORw0KGgo"), "no base64 in any span: {everything}");
    assert!(!everything.contains("some-picture"), "no bytes in any span");
}
