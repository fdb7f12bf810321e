//! A real OTLP/HTTP receiver for the tests, started on a free port: it reads each POST to
//! `/v1/traces` or `/v1/metrics`, answers 200, and decodes the body with the protocol's own
//! protobuf messages into flat spans and metric points.

#![allow(dead_code, reason = "each test binary reads a part of it")]

use std::collections::BTreeMap;
use std::io::{BufRead, BufReader, Read, Write};
use std::net::{TcpListener, TcpStream};
use std::sync::mpsc;
use std::time::{Duration, Instant};

use opentelemetry_proto::tonic::collector::metrics::v1::ExportMetricsServiceRequest;
use opentelemetry_proto::tonic::collector::trace::v1::ExportTraceServiceRequest;
use opentelemetry_proto::tonic::common::v1::KeyValue;
use opentelemetry_proto::tonic::common::v1::any_value::Value as AnyValue;
use opentelemetry_proto::tonic::metrics::v1::metric::Data;
use prost::Message;

/// A received span, flattened.
#[derive(Debug, Clone)]
pub(crate) struct Span {
    pub(crate) service: String,
    pub(crate) name: String,
    /// The protocol's `SpanKind`: 1 internal, 2 server, 3 client.
    pub(crate) kind: i32,
    pub(crate) trace_id: Vec<u8>,
    pub(crate) span_id: Vec<u8>,
    pub(crate) parent_span_id: Vec<u8>,
    pub(crate) attributes: BTreeMap<String, String>,
}

/// One data point of a received histogram.
#[derive(Debug, Clone)]
pub(crate) struct Point {
    pub(crate) service: String,
    pub(crate) metric: String,
    pub(crate) unit: String,
    pub(crate) count: u64,
    pub(crate) sum: f64,
    pub(crate) attributes: BTreeMap<String, String>,
}

/// What was received so far.
#[derive(Debug, Default)]
pub(crate) struct Received {
    /// The request line of each export.
    pub(crate) requests: Vec<String>,
    pub(crate) spans: Vec<Span>,
    pub(crate) points: Vec<Point>,
}

/// The receiver; its URL is the base an exporter is given.
pub(crate) struct Receiver {
    pub(crate) url: String,
    exports: mpsc::Receiver<(String, Vec<u8>)>,
    pub(crate) received: Received,
}

impl Receiver {
    pub(crate) fn start() -> Self {
        let listener = TcpListener::bind("127.0.0.1:0").expect("a free port");
        let url = format!("http://{}", listener.local_addr().expect("bound"));
        let (sender, exports) = mpsc::channel();
        std::thread::spawn(move || {
            for stream in listener.incoming() {
                let Ok(stream) = stream else { continue };
                if let Some(export) = read_export(stream) {
                    let _ = sender.send(export);
                }
            }
        });
        Self { url, exports, received: Received::default() }
    }

    /// Takes in exports until `done` holds of what was received, or `within` has passed;
    /// returns whether it held.
    pub(crate) fn until(&mut self, within: Duration, done: impl Fn(&Received) -> bool) -> bool {
        let deadline = Instant::now() + within;
        while !done(&self.received) {
            let left = deadline.saturating_duration_since(Instant::now());
            let Ok((request_line, body)) = self.exports.recv_timeout(left) else { return false };
            self.take(request_line, &body);
        }
        true
    }

    fn take(&mut self, request_line: String, body: &[u8]) {
        if request_line.starts_with("POST /v1/traces ") {
            let export = ExportTraceServiceRequest::decode(body).expect("an OTLP trace export");
            for resource in export.resource_spans {
                let service = service(resource.resource.as_ref().map(|r| r.attributes.as_slice()));
                for span in resource.scope_spans.into_iter().flat_map(|s| s.spans) {
                    self.received.spans.push(Span {
                        service: service.clone(),
                        name: span.name,
                        kind: span.kind,
                        trace_id: span.trace_id,
                        span_id: span.span_id,
                        parent_span_id: span.parent_span_id,
                        attributes: attributes(&span.attributes),
                    });
                }
            }
        } else if request_line.starts_with("POST /v1/metrics ") {
            let export = ExportMetricsServiceRequest::decode(body).expect("an OTLP metrics export");
            for resource in export.resource_metrics {
                let service = service(resource.resource.as_ref().map(|r| r.attributes.as_slice()));
                for metric in resource.scope_metrics.into_iter().flat_map(|s| s.metrics) {
                    let Some(Data::Histogram(histogram)) = metric.data else { continue };
                    for point in histogram.data_points {
                        self.received.points.push(Point {
                            service: service.clone(),
                            metric: metric.name.clone(),
                            unit: metric.unit.clone(),
                            count: point.count,
                            sum: point.sum.unwrap_or_default(),
                            attributes: attributes(&point.attributes),
                        });
                    }
                }
            }
        }
        self.received.requests.push(request_line);
    }
}

/// Reads one HTTP request from `stream`, answers 200, and gives its request line and body.
fn read_export(mut stream: TcpStream) -> Option<(String, Vec<u8>)> {
    let mut reader = BufReader::new(stream.try_clone().ok()?);
    let mut request_line = String::new();
    reader.read_line(&mut request_line).ok()?;
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
    reader.read_exact(&mut body).ok()?;
    let _ = stream.write_all(
        b"HTTP/1.1 200 OK\r\ncontent-type: application/x-protobuf\r\ncontent-length: 0\r\nconnection: close\r\n\r\n",
    );
    Some((request_line, body))
}

/// Attributes as text: strings as they are, other values as the protocol's debug form.
fn attributes(attributes: &[KeyValue]) -> BTreeMap<String, String> {
    let text = |value: &AnyValue| match value {
        AnyValue::StringValue(text) => text.clone(),
        AnyValue::IntValue(n) => n.to_string(),
        AnyValue::BoolValue(b) => b.to_string(),
        AnyValue::DoubleValue(x) => x.to_string(),
        other => format!("{other:?}"),
    };
    attributes
        .iter()
        .filter_map(|kv| Some((kv.key.clone(), text(kv.value.as_ref()?.value.as_ref()?))))
        .collect()
}

/// The `service.name` of a resource.
fn service(attributes: Option<&[KeyValue]>) -> String {
    attributes
        .map(self::attributes)
        .and_then(|a| a.get("service.name").cloned())
        .unwrap_or_default()
}
