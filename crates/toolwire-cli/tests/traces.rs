//! `toolwire --otlp URL call ...` sends its trace and its metrics to a real OTLP/HTTP
//! receiver started by the test (`common/otlp.rs`). The call's span is `execute_tool {tool}`,
//! with the OpenTelemetry GenAI attributes, its duration is the
//! `gen_ai.execute_tool.duration` histogram, and both are sent before the process exits.

use std::time::Duration;

use crate::common::otlp::Receiver;
use crate::common::{manifest, stderr, toolwire};

#[test]
fn a_call_with_otlp_sends_its_execute_tool_span_and_its_duration_before_it_exits() {
    let mut receiver = Receiver::start();
    let path = manifest(ECHO);
    let output = toolwire()
        .args(["--otlp", &receiver.url, "-m"])
        .arg(&path)
        .args(["call", "echo", "--args", r#"{"message": "hi"}"#])
        .env("OTEL_SERVICE_NAME", "traces-test")
        .env("OTEL_INSTRUMENTATION_GENAI_CAPTURE_MESSAGE_CONTENT", "true")
        .output()
        .expect("toolwire runs");
    assert!(output.status.success(), "{}", stderr(&output));

    let sent = receiver.until(Duration::from_secs(10), |r| {
        r.spans.iter().any(|s| s.name == "execute_tool echo")
            && r.points.iter().any(|p| p.metric == "gen_ai.execute_tool.duration")
    });
    let received = &receiver.received;
    assert!(sent, "the trace and the metrics were sent before exit: {received:#?}");
    let span = received.spans.iter().find(|s| s.name == "execute_tool echo").expect("the span");
    assert_eq!(span.service, "traces-test");
    assert_eq!(span.kind, 1, "SPAN_KIND_INTERNAL: {span:?}");
    let attribute = |key: &str| span.attributes.get(key).map(String::as_str);
    assert_eq!(attribute("gen_ai.operation.name"), Some("execute_tool"));
    assert_eq!(attribute("gen_ai.tool.name"), Some("echo"));
    assert_eq!(attribute("gen_ai.tool.type"), Some("function"));
    assert_eq!(attribute("gen_ai.tool.description"), Some("Print a message back"));
    assert_eq!(attribute("toolwire.outcome"), Some("success"));
    assert_eq!(attribute("gen_ai.tool.call.arguments"), Some(r#"{"message":"hi"}"#));
    assert!(attribute("error.type").is_none(), "{span:?}");

    let point = received.points.iter().find(|p| p.metric == "gen_ai.execute_tool.duration");
    let point = point.expect("the duration");
    assert_eq!((point.unit.as_str(), point.count, point.service.as_str()), ("s", 1, "traces-test"));
    assert_eq!(point.attributes.get("gen_ai.tool.name").map(String::as_str), Some("echo"));
}

/// Regression: toolwire read the SDK's own variables itself and set what it read, so those it
/// did not read were lost: `OTEL_RESOURCE_ATTRIBUTES` never reached a span. They are left to
/// the SDK, which reads them all.
#[test]
fn regression_the_sdks_own_variables_reach_the_spans() {
    let mut receiver = Receiver::start();
    let path = manifest(ECHO);
    let output = toolwire()
        .args(["--otlp", &receiver.url, "-m"])
        .arg(&path)
        .args(["call", "echo", "--args", r#"{"message": "hi"}"#])
        .env_remove("OTEL_SERVICE_NAME")
        .env("OTEL_RESOURCE_ATTRIBUTES", "service.name=from-resource-attributes")
        .output()
        .expect("toolwire runs");
    assert!(output.status.success(), "{}", stderr(&output));
    let sent = receiver
        .until(Duration::from_secs(10), |r| r.spans.iter().any(|s| s.name == "execute_tool echo"));
    assert!(sent, "{:#?}", receiver.received);
    let span =
        receiver.received.spans.iter().find(|s| s.name == "execute_tool echo").expect("the span");
    assert_eq!(span.service, "from-resource-attributes");
}

/// The tool the served manifest has.
const ECHO: &str = r#"
[[tool]]
name = "echo"
description = "Print a message back"
parameters = { type = "object", properties = { message = { type = "string" } }, required = ["message"] }
[tool.command]
argv = ["echo", "{message}"]
"#;

/// A mock model's turn, with the usage chunk OpenAI streams last.
fn with_usage(
    mut chunks: Vec<serde_json::Value>,
    input: u64,
    output: u64,
) -> Vec<serde_json::Value> {
    chunks.push(serde_json::json!({"choices": [],
        "usage": {"prompt_tokens": input, "completion_tokens": output}}));
    chunks
}

/// `toolwire run`, exporting to a receiver, calls a tool of an MCP server of its manifest:
/// `toolwire serve`, exporting to the same receiver. The receiver sees one trace across both processes, as the GenAI and
/// MCP conventions describe it, and each process's metrics.
#[test]
fn an_agent_calling_a_served_tool_makes_one_trace_across_the_mcp_hop() {
    use crate::common::model::{calling, mock_model, saying};

    let mut receiver = Receiver::start();
    let port = std::net::TcpListener::bind("127.0.0.1:0")
        .expect("a port")
        .local_addr()
        .expect("bound")
        .port();
    let mut server = std::process::Command::new(crate::common::binary())
        .args(["--otlp", &receiver.url, "-m"])
        .arg(manifest(ECHO))
        .args(["serve", "--http", &format!("127.0.0.1:{port}")])
        .env("XDG_DATA_HOME", crate::common::scratch("data"))
        .env("OTEL_SERVICE_NAME", "tool-server")
        .env("OTEL_BSP_SCHEDULE_DELAY", "100")
        .env("OTEL_METRIC_EXPORT_INTERVAL", "200")
        .stdin(std::process::Stdio::null())
        .stdout(std::process::Stdio::null())
        .spawn()
        .expect("toolwire serve starts");
    let deadline = std::time::Instant::now() + Duration::from_secs(30);
    while std::net::TcpStream::connect(("127.0.0.1", port)).is_err() {
        assert!(std::time::Instant::now() < deadline, "toolwire serve did not listen");
        std::thread::sleep(Duration::from_millis(50));
    }
    let (model, _seen) = mock_model(vec![
        with_usage(calling("call_1", "tools__echo", r#"{"message": "hi"}"#), 40, 12),
        with_usage(saying("it said hi"), 61, 4),
    ]);
    let agent_manifest = manifest(&format!(
        "[mcp_servers.tools]\nurl = \"http://127.0.0.1:{port}/mcp\"\naccept_new = true\n"
    ));
    let journal = crate::common::scratch("one-trace").join("journal.sqlite");
    let agent = toolwire()
        .args(["--otlp", &receiver.url, "-m"])
        .arg(&agent_manifest)
        .arg("--journal")
        .arg(&journal)
        .args(["run", "say hi", "--model", "openai:mock-model", "--base-url", &model])
        .env("OPENAI_API_KEY", "test-key")
        .env("OTEL_SERVICE_NAME", "agent")
        .output()
        .expect("toolwire run runs");
    assert!(agent.status.success(), "{}", stderr(&agent));
    assert!(String::from_utf8_lossy(&agent.stdout).contains("it said hi"), "{}", stderr(&agent));
    // The journal's audit line of the call names its span.
    let log = toolwire()
        .arg("-m")
        .arg(&agent_manifest)
        .arg("--journal")
        .arg(&journal)
        .args(["log", "--json"])
        .output()
        .expect("toolwire log runs");
    let printed = String::from_utf8_lossy(&log.stdout).into_owned();
    let receipt: serde_json::Value = printed
        .lines()
        .find_map(|line| serde_json::from_str(line).ok())
        .unwrap_or_else(|| panic!("a receipt in the log: {printed}"));
    let trace = |key: &str| receipt["trace"][key].as_str().unwrap_or("none").to_owned();
    let link = format!("{}-{}", trace("trace_id"), trace("span_id"));

    let names = [
        "invoke_agent",
        "chat mock-model",
        "execute_tool tools__echo",
        "tools/call echo",
        "execute_tool echo",
    ];
    let arrived = receiver.until(Duration::from_secs(20), |r| {
        names.iter().all(|name| r.spans.iter().any(|s| s.name == *name))
            && r.spans.iter().filter(|s| s.name == "tools/call echo").count() == 2
    });
    // SIGTERM: the server stops, and sends what it has left.
    nix::sys::signal::kill(
        nix::unistd::Pid::from_raw(i32::try_from(server.id()).expect("a pid")),
        nix::sys::signal::Signal::SIGTERM,
    )
    .expect("the server is signalled");
    let _ = server.wait();
    let metrics = [
        ("agent", "gen_ai.invoke_agent.duration"),
        ("agent", "gen_ai.client.operation.duration"),
        ("agent", "gen_ai.client.token.usage"),
        ("agent", "gen_ai.execute_tool.duration"),
        ("agent", "mcp.client.operation.duration"),
        ("tool-server", "mcp.server.operation.duration"),
        ("tool-server", "gen_ai.execute_tool.duration"),
    ];
    let measured = receiver.until(Duration::from_secs(20), |r| {
        metrics.iter().all(|(service, metric)| {
            r.points.iter().any(|p| p.service == *service && p.metric == *metric)
        })
    });
    let received = &receiver.received;
    assert!(arrived, "every span arrived: {:#?}", received.spans);
    assert!(measured, "every metric arrived: {:#?}", received.points);

    // One trace, each span the child of the one before it.
    let span = |name: &str, kind: i32| {
        let found = received.spans.iter().find(|s| s.name == name && s.kind == kind);
        found.unwrap_or_else(|| panic!("no {name} of kind {kind}: {:#?}", received.spans))
    };
    let chain = [
        span("invoke_agent", 1),
        span("chat mock-model", 3),
        span("execute_tool tools__echo", 1),
        span("tools/call echo", 3),
        span("tools/call echo", 2),
        span("execute_tool echo", 1),
    ];
    for pair in chain.windows(2) {
        let (parent, child) = (pair[0], pair[1]);
        assert_eq!(child.trace_id, parent.trace_id, "{} is in {}'s trace", child.name, parent.name);
        assert_eq!(
            child.parent_span_id, parent.span_id,
            "{} is a child of {}",
            child.name, parent.name
        );
    }
    assert!(chain[0].parent_span_id.is_empty(), "the run is the trace's root");
    let services: Vec<&str> = chain.iter().map(|s| s.service.as_str()).collect();
    assert_eq!(services, ["agent", "agent", "agent", "agent", "tool-server", "tool-server"]);
    let (agent_span, chat, served) = (chain[0], chain[1], chain[5]);
    assert_eq!(agent_span.attributes["gen_ai.operation.name"], "invoke_agent");
    assert_eq!(agent_span.attributes["gen_ai.provider.name"], "openai");
    assert_eq!(chat.attributes["gen_ai.request.model"], "mock-model");
    let calling_chat = received.spans.iter().find(|s| {
        s.name == "chat mock-model"
            && s.attributes.get("gen_ai.usage.input_tokens").map(String::as_str) == Some("40")
    });
    assert!(
        calling_chat.is_some_and(|c| c.attributes["gen_ai.usage.output_tokens"] == "12"),
        "{:#?}",
        received.spans
    );
    assert_eq!(chain[3].attributes["mcp.method.name"], "tools/call");
    assert_eq!(served.attributes["gen_ai.tool.name"], "echo");
    // The server names the call by its own id, derived from the request.
    assert!(served.attributes.contains_key("gen_ai.tool.call.id"), "{served:?}");
    assert_eq!(chain[2].attributes["gen_ai.tool.call.id"], "call_1");

    // The agent's receipt names its execute_tool span.
    let hex = |bytes: &[u8]| bytes.iter().map(|b| format!("{b:02x}")).collect::<String>();
    assert_eq!(link, format!("{}-{}", hex(&chain[2].trace_id), hex(&chain[2].span_id)));

    // The metrics, with the conventions' units and attributes.
    let point = |service: &str, metric: &str| {
        let found = received.points.iter().find(|p| p.service == service && p.metric == metric);
        found.unwrap_or_else(|| panic!("no {metric} from {service}"))
    };
    let tokens: Vec<(&str, f64)> = received
        .points
        .iter()
        .filter(|p| p.metric == "gen_ai.client.token.usage")
        .map(|p| (p.attributes["gen_ai.token.type"].as_str(), p.sum))
        .collect();
    assert!(tokens.contains(&("input", 101.0)) && tokens.contains(&("output", 16.0)), "{tokens:?}");
    assert_eq!(point("agent", "gen_ai.client.token.usage").unit, "{token}");
    assert_eq!(point("agent", "gen_ai.client.operation.duration").count, 2);
    let tool = point("tool-server", "gen_ai.execute_tool.duration");
    assert_eq!((tool.unit.as_str(), tool.count), ("s", 1));
    assert_eq!(tool.attributes["gen_ai.tool.name"], "echo");
    let served = point("tool-server", "mcp.server.operation.duration");
    assert_eq!(served.attributes["mcp.method.name"], "tools/call");
    assert!(served.sum > 0.0 && served.sum < 30.0, "{served:?}");

    assert_names_are_the_conventions(received);
}

/// Every `gen_ai.*`, `mcp.*` and `error.*` name received, of an attribute or a metric, is
/// one the conventions' registry defines (the `opentelemetry-semantic-conventions` crate,
/// semconv 1.42.0), or one the GenAI conventions added since (semantic-conventions-genai
/// v0.1.0): a misspelt name is invisible to every backend.
#[expect(
    deprecated,
    reason = "the crate marks the GenAI names as moved to semantic-conventions-genai, which \
              publishes no Rust crate; its constants still hold the registry's names"
)]
fn assert_names_are_the_conventions(received: &crate::common::otlp::Received) {
    use opentelemetry_semantic_conventions::{attribute as a, metric as m};
    let registry = [
        a::ERROR_TYPE,
        a::GEN_AI_CONVERSATION_ID,
        a::GEN_AI_OPERATION_NAME,
        a::GEN_AI_PROVIDER_NAME,
        a::GEN_AI_REQUEST_MODEL,
        a::GEN_AI_RESPONSE_FINISH_REASONS,
        a::GEN_AI_TOKEN_TYPE,
        a::GEN_AI_TOOL_CALL_ARGUMENTS,
        a::GEN_AI_TOOL_CALL_ID,
        a::GEN_AI_TOOL_CALL_RESULT,
        a::GEN_AI_TOOL_DESCRIPTION,
        a::GEN_AI_TOOL_NAME,
        a::GEN_AI_TOOL_TYPE,
        a::GEN_AI_USAGE_INPUT_TOKENS,
        a::GEN_AI_USAGE_OUTPUT_TOKENS,
        a::MCP_METHOD_NAME,
        a::MCP_PROTOCOL_VERSION,
        m::GEN_AI_CLIENT_OPERATION_DURATION,
        m::GEN_AI_CLIENT_TOKEN_USAGE,
        m::MCP_CLIENT_OPERATION_DURATION,
        m::MCP_SERVER_OPERATION_DURATION,
    ];
    let newer = ["gen_ai.execute_tool.duration", "gen_ai.invoke_agent.duration"];
    let spans = received.spans.iter().flat_map(|s| s.attributes.keys());
    let points = received.points.iter().flat_map(|p| p.attributes.keys().chain([&p.metric]));
    let ours = |name: &&String| ["gen_ai.", "mcp.", "error."].iter().any(|p| name.starts_with(p));
    let names: std::collections::BTreeSet<&String> = spans.chain(points).filter(ours).collect();
    assert!(names.len() > 15, "{names:?}");
    for name in names {
        let known = registry.contains(&name.as_str()) || newer.contains(&name.as_str());
        assert!(known, "{name:?} is not a name of the conventions");
    }
}
