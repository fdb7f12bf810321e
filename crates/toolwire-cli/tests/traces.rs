//! `toolwire --otlp URL call ...` sends its trace to a real OTLP/HTTP receiver, started by
//! the test: a listener that reads each POST to `/v1/traces` and decodes it with the
//! protocol's own protobuf messages. The call's span is `execute_tool {tool}`, with the
//! OpenTelemetry GenAI attributes, and it is sent before the process exits.

use std::io::{BufRead, BufReader, Read, Write};
use std::net::TcpListener;
use std::sync::mpsc;
use std::time::Duration;

use opentelemetry_proto::tonic::collector::trace::v1::ExportTraceServiceRequest;
use opentelemetry_proto::tonic::common::v1::KeyValue;
use opentelemetry_proto::tonic::common::v1::any_value::Value as AnyValue;
use prost::Message;

use crate::common::{manifest, stderr, toolwire};

/// Receives OTLP/HTTP trace exports on a free port; each request's body goes to the channel.
fn receiver() -> (String, mpsc::Receiver<(String, Vec<u8>)>) {
    let listener = TcpListener::bind("127.0.0.1:0").expect("a free port");
    let url = format!("http://{}", listener.local_addr().expect("bound"));
    let (sender, received) = mpsc::channel();
    std::thread::spawn(move || {
        for stream in listener.incoming() {
            let Ok(mut stream) = stream else { continue };
            let mut reader = BufReader::new(stream.try_clone().expect("a clone"));
            let mut request_line = String::new();
            if reader.read_line(&mut request_line).is_err() {
                continue;
            }
            let mut length = 0;
            loop {
                let mut line = String::new();
                if reader.read_line(&mut line).is_err() || line.trim().is_empty() {
                    break;
                }
                if let Some((name, value)) = line.split_once(':')
                    && name.eq_ignore_ascii_case("content-length")
                {
                    length = value.trim().parse().unwrap_or(0);
                }
            }
            let mut body = vec![0; length];
            if reader.read_exact(&mut body).is_err() {
                continue;
            }
            let _ = stream.write_all(
                b"HTTP/1.1 200 OK\r\ncontent-type: application/x-protobuf\r\ncontent-length: 0\r\nconnection: close\r\n\r\n",
            );
            let _ = sender.send((request_line, body));
        }
    });
    (url, received)
}

fn text(attributes: &[KeyValue], key: &str) -> Option<String> {
    let value = attributes.iter().find(|kv| kv.key == key)?.value.as_ref()?.value.as_ref()?;
    match value {
        AnyValue::StringValue(text) => Some(text.clone()),
        other => Some(format!("{other:?}")),
    }
}

#[test]
fn a_call_with_otlp_sends_its_execute_tool_span_before_it_exits() {
    let (url, received) = receiver();
    let path = manifest(
        r#"
[[tool]]
name = "echo"
description = "Print a message back"
parameters = { type = "object", properties = { message = { type = "string" } }, required = ["message"] }
[tool.command]
argv = ["echo", "{message}"]
"#,
    );
    let output = toolwire()
        .args(["--otlp", &url, "-m"])
        .arg(&path)
        .args(["call", "echo", "--args", r#"{"message": "hi"}"#])
        .env("OTEL_SERVICE_NAME", "traces-test")
        .output()
        .expect("toolwire runs");
    assert!(output.status.success(), "{}", stderr(&output));

    let (request_line, body) =
        received.recv_timeout(Duration::from_secs(10)).expect("the trace was sent before exit");
    assert!(request_line.starts_with("POST /v1/traces "), "{request_line:?}");
    let export = ExportTraceServiceRequest::decode(body.as_slice()).expect("an OTLP export");
    let resource = export.resource_spans.first().and_then(|r| r.resource.as_ref());
    let service = resource.and_then(|r| text(&r.attributes, "service.name"));
    assert_eq!(service.as_deref(), Some("traces-test"));
    let spans: Vec<_> =
        export.resource_spans.iter().flat_map(|r| &r.scope_spans).flat_map(|s| &s.spans).collect();
    let span = spans.iter().find(|s| s.name == "execute_tool echo");
    let span = span.unwrap_or_else(|| {
        panic!("no execute_tool span in {:?}", spans.iter().map(|s| &s.name).collect::<Vec<_>>())
    });
    // SPAN_KIND_INTERNAL
    assert_eq!(span.kind, 1, "{span:?}");
    assert_eq!(text(&span.attributes, "gen_ai.operation.name").as_deref(), Some("execute_tool"));
    assert_eq!(text(&span.attributes, "gen_ai.tool.name").as_deref(), Some("echo"));
    assert_eq!(text(&span.attributes, "gen_ai.tool.type").as_deref(), Some("function"));
    let description = text(&span.attributes, "gen_ai.tool.description");
    assert_eq!(description.as_deref(), Some("Print a message back"));
    assert_eq!(text(&span.attributes, "toolwire.outcome").as_deref(), Some("success"));
    assert!(text(&span.attributes, "error.type").is_none(), "{span:?}");
}
