//! [`MetricsLayer`]: toolwire's metric events, recorded into OpenTelemetry histograms.
//!
//! toolwire's crates report each measurement as a `tracing` event (see
//! `toolwire::telemetry`); this layer turns the ones it knows into the conventions'
//! instruments, with their units and bucket boundaries. An event naming an instrument it
//! does not know is ignored.

use std::collections::HashMap;

use opentelemetry::KeyValue;
use opentelemetry::metrics::{Histogram, Meter};
use tracing::field::{Field, Visit};
use tracing::{Event, Subscriber};
use tracing_subscriber::Layer;
use tracing_subscriber::layer::Context;

/// The GenAI conventions' advice for durations, in seconds.
const GEN_AI_SECONDS: [f64; 14] =
    [0.01, 0.02, 0.04, 0.08, 0.16, 0.32, 0.64, 1.28, 2.56, 5.12, 10.24, 20.48, 40.96, 81.92];
/// The GenAI conventions' advice for token counts: powers of 4, from 1 to 4^13.
const GEN_AI_TOKENS: [f64; 14] = [
    1.0,
    4.0,
    16.0,
    64.0,
    256.0,
    1024.0,
    4096.0,
    16384.0,
    65536.0,
    262_144.0,
    1_048_576.0,
    4_194_304.0,
    16_777_216.0,
    67_108_864.0,
];
/// The MCP conventions' advice for operation durations, in seconds.
const MCP_SECONDS: [f64; 14] =
    [0.01, 0.02, 0.05, 0.1, 0.2, 0.5, 1.0, 2.0, 5.0, 10.0, 30.0, 60.0, 120.0, 300.0];

/// Each instrument toolwire reports: its name, unit, description and boundaries.
const INSTRUMENTS: [(&str, &str, &str, &[f64]); 6] = [
    ("gen_ai.execute_tool.duration", "s", "Duration of a tool execution.", &GEN_AI_SECONDS),
    ("gen_ai.invoke_agent.duration", "s", "Duration of an agent invocation.", &GEN_AI_SECONDS),
    ("gen_ai.client.operation.duration", "s", "GenAI operation duration.", &GEN_AI_SECONDS),
    (
        "gen_ai.client.token.usage",
        "{token}",
        "Number of input and output tokens used.",
        &GEN_AI_TOKENS,
    ),
    (
        "mcp.client.operation.duration",
        "s",
        "Duration of an MCP request, as the client saw it.",
        &MCP_SECONDS,
    ),
    (
        "mcp.server.operation.duration",
        "s",
        "Duration of an MCP request, as the server saw it.",
        &MCP_SECONDS,
    ),
];

/// Records toolwire's metric events.
pub(crate) struct MetricsLayer {
    histograms: HashMap<&'static str, Histogram<f64>>,
}

impl MetricsLayer {
    /// The layer, with every instrument made on `meter`.
    pub(crate) fn new(meter: &Meter) -> Self {
        let histograms = INSTRUMENTS
            .iter()
            .map(|(name, unit, description, boundaries)| {
                let histogram = meter
                    .f64_histogram(*name)
                    .with_unit(*unit)
                    .with_description(*description)
                    .with_boundaries(boundaries.to_vec())
                    .build();
                (*name, histogram)
            })
            .collect();
        Self { histograms }
    }
}

impl<S: Subscriber> Layer<S> for MetricsLayer {
    fn on_event(&self, event: &Event<'_>, _ctx: Context<'_, S>) {
        let mut measurement = Measurement {
            histograms: &self.histograms,
            histogram: None,
            value: None,
            attributes: Vec::with_capacity(6),
        };
        event.record(&mut measurement);
        if let (Some(histogram), Some(value)) = (measurement.histogram, measurement.value) {
            histogram.record(value, &measurement.attributes);
        }
    }
}

/// One metric event's fields: the instrument its `metric` names, found without copying the
/// name, its `value`, and the rest as attributes.
struct Measurement<'a> {
    histograms: &'a HashMap<&'static str, Histogram<f64>>,
    histogram: Option<&'a Histogram<f64>>,
    value: Option<f64>,
    attributes: Vec<KeyValue>,
}

impl Measurement<'_> {
    fn number(&mut self, field: &Field, value: f64, attribute: KeyValue) {
        if field.name() == "value" {
            self.value = Some(value);
        } else {
            self.attributes.push(attribute);
        }
    }
}

impl Visit for Measurement<'_> {
    fn record_str(&mut self, field: &Field, value: &str) {
        match field.name() {
            "metric" => self.histogram = self.histograms.get(value),
            name => self.attributes.push(KeyValue::new(name, value.to_owned())),
        }
    }

    #[expect(clippy::cast_precision_loss, reason = "token counts are far below 2^53")]
    fn record_u64(&mut self, field: &Field, value: u64) {
        let attribute = KeyValue::new(field.name(), i64::try_from(value).unwrap_or(i64::MAX));
        self.number(field, value as f64, attribute);
    }

    #[expect(clippy::cast_precision_loss, reason = "token counts are far below 2^53")]
    fn record_i64(&mut self, field: &Field, value: i64) {
        self.number(field, value as f64, KeyValue::new(field.name(), value));
    }

    fn record_f64(&mut self, field: &Field, value: f64) {
        self.number(field, value, KeyValue::new(field.name(), value));
    }

    fn record_bool(&mut self, field: &Field, value: bool) {
        self.attributes.push(KeyValue::new(field.name(), value));
    }

    fn record_debug(&mut self, field: &Field, value: &dyn std::fmt::Debug) {
        self.attributes.push(KeyValue::new(field.name(), format!("{value:?}")));
    }
}
