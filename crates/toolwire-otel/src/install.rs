//! [`install`]: the OTLP exporters, the bridge from `tracing`, and the global subscriber.

use std::fmt;

use opentelemetry::metrics::MeterProvider as _;
use opentelemetry::trace::{TraceContextExt as _, TracerProvider as _};
use opentelemetry_otlp::{MetricExporter, Protocol, SpanExporter, WithExportConfig};
use opentelemetry_sdk::Resource;
use opentelemetry_sdk::metrics::{PeriodicReader, SdkMeterProvider};
use opentelemetry_sdk::trace::SdkTracerProvider;
use toolwire::telemetry::{self, METRICS_TARGET, TraceLink};
use tracing::Level;
use tracing_opentelemetry::OpenTelemetrySpanExt as _;
use tracing_subscriber::Layer;
use tracing_subscriber::filter::{LevelFilter, Targets};
use tracing_subscriber::layer::SubscriberExt;
use tracing_subscriber::util::SubscriberInitExt;

use crate::OtelConfig;
use crate::config::DEFAULT_SERVICE;
use crate::metrics::MetricsLayer;

/// Why the export could not be set up.
#[derive(Debug)]
pub struct OtelError {
    kind: OtelErrorKind,
    message: String,
}

/// What kind of [`OtelError`] it is.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[non_exhaustive]
pub enum OtelErrorKind {
    /// An exporter could not be built (its endpoint, its HTTP client).
    Exporter,
    /// A global `tracing` subscriber is set already.
    Subscriber,
}

impl OtelError {
    fn new(kind: OtelErrorKind, message: impl Into<String>) -> Self {
        Self { kind, message: message.into() }
    }

    /// What kind of error it is.
    pub fn kind(&self) -> OtelErrorKind {
        self.kind
    }

    /// Whether an exporter could not be built.
    pub fn is_exporter(&self) -> bool {
        self.kind == OtelErrorKind::Exporter
    }

    /// Whether a global subscriber was set already.
    pub fn is_subscriber(&self) -> bool {
        self.kind == OtelErrorKind::Subscriber
    }
}

impl fmt::Display for OtelError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "cannot export traces over OTLP: {}", self.message)
    }
}

impl std::error::Error for OtelError {}

/// Keeps the export running; dropping it sends what is left and stops it, waiting for the
/// last batch (a few seconds at most, when the receiver is slow or gone).
#[must_use = "dropping the guard stops the export"]
pub struct OtelGuard {
    traces: SdkTracerProvider,
    metrics: Option<SdkMeterProvider>,
}

impl OtelGuard {
    /// Sends the spans ended and the metrics recorded so far, now.
    pub fn flush(&self) {
        if let Err(error) = self.traces.force_flush() {
            eprintln!("warning: the traces could not all be sent: {error}");
        }
        if let Some(Err(error)) = self.metrics.as_ref().map(SdkMeterProvider::force_flush) {
            eprintln!("warning: the metrics could not all be sent: {error}");
        }
    }
}

impl Drop for OtelGuard {
    fn drop(&mut self) {
        if let Err(error) = self.traces.shutdown() {
            eprintln!("warning: the traces could not all be sent: {error}");
        }
        if let Some(Err(error)) = self.metrics.as_ref().map(SdkMeterProvider::shutdown) {
            eprintln!("warning: the metrics could not all be sent: {error}");
        }
    }
}

impl fmt::Debug for OtelGuard {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("OtelGuard").finish_non_exhaustive()
    }
}

/// Sends toolwire's spans and metrics to `config`'s receiver from now on.
///
/// - It installs the global `tracing` subscriber, with the spans of toolwire's crates from
///   DEBUG up (every `execute_tool` span) and every other crate's from INFO up, batched on a
///   thread of its own;
/// - toolwire's metric events become the conventions' histograms, sent every
///   [`metric_interval`](OtelConfig::metric_interval), unless metrics are off;
/// - every receipt carries the trace and span ids of its invocation
///   (`toolwire::telemetry::link_receipts`);
/// - spans carry arguments and results when [`capture_content`](OtelConfig::capture_content)
///   is on.
///
/// Call it before starting a Tokio runtime, and drop the guard after the runtime has
/// stopped: the exporters' client blocks.
///
/// # Errors
///
/// When an exporter cannot be built, or a global subscriber is set already.
pub fn install(config: OtelConfig) -> Result<OtelGuard, OtelError> {
    toolwire::install_tls_provider();
    let resource = resource(&config);
    let mut exporter = SpanExporter::builder().with_http().with_protocol(Protocol::HttpBinary);
    if let Some(url) = config.traces_url() {
        exporter = exporter.with_endpoint(url);
    }
    let exporter =
        exporter.build().map_err(|e| OtelError::new(OtelErrorKind::Exporter, e.to_string()))?;
    let traces = SdkTracerProvider::builder()
        .with_batch_exporter(exporter)
        .with_resource(resource.clone())
        .build();
    let metrics = config.metrics.then(|| meter_provider(&config, resource)).transpose()?;
    let spans = Targets::new()
        .with_target(METRICS_TARGET, LevelFilter::OFF)
        .with_target("toolwire", Level::DEBUG)
        .with_target("toolwire_agent", Level::DEBUG)
        .with_target("toolwire_mcp", Level::DEBUG)
        .with_target("toolwire_journal", Level::DEBUG)
        .with_default(Level::INFO);
    let trace_layer =
        tracing_opentelemetry::layer().with_tracer(traces.tracer("toolwire")).with_filter(spans);
    let metrics_layer = metrics.as_ref().map(|provider| {
        let layer = MetricsLayer::new(&provider.meter("toolwire"));
        layer.with_filter(Targets::new().with_target(METRICS_TARGET, Level::TRACE))
    });
    tracing_subscriber::registry().with(trace_layer).with(metrics_layer).try_init().map_err(
        |error| {
            let message = format!("a tracing subscriber is set already: {error}");
            OtelError::new(OtelErrorKind::Subscriber, message)
        },
    )?;
    telemetry::link_receipts(span_link);
    telemetry::record_content(config.capture_content);
    Ok(OtelGuard { traces, metrics })
}

/// The metrics' provider: OTLP over HTTP, read every `config.metric_interval`.
fn meter_provider(config: &OtelConfig, resource: Resource) -> Result<SdkMeterProvider, OtelError> {
    let mut exporter = MetricExporter::builder().with_http().with_protocol(Protocol::HttpBinary);
    if let Some(url) = config.metrics_url() {
        exporter = exporter.with_endpoint(url);
    }
    let exporter =
        exporter.build().map_err(|e| OtelError::new(OtelErrorKind::Exporter, e.to_string()))?;
    let mut reader = PeriodicReader::builder(exporter);
    if let Some(interval) = config.metric_interval {
        reader = reader.with_interval(interval);
    }
    Ok(SdkMeterProvider::builder().with_reader(reader.build()).with_resource(resource).build())
}

/// The resource the spans and metrics carry: the SDK's (which reads `OTEL_SERVICE_NAME` and
/// `OTEL_RESOURCE_ATTRIBUTES`), with the program's service name, or `toolwire` when none of
/// them names one.
fn resource(config: &OtelConfig) -> Resource {
    if let Some(name) = &config.service_name {
        return Resource::builder().with_service_name(name.clone()).build();
    }
    let from_sdk = Resource::builder().build();
    let service = from_sdk.get(&opentelemetry::Key::from_static_str("service.name"));
    // The SDK's own default when no variable names the service.
    let unnamed = service.is_none_or(|name| name.as_str().starts_with("unknown_service"));
    if unnamed { Resource::builder().with_service_name(DEFAULT_SERVICE).build() } else { from_sdk }
}

/// The OpenTelemetry ids of `span`, as the bridge assigned them.
fn span_link(span: &tracing::Span) -> Option<TraceLink> {
    let context = span.context();
    let span = context.span();
    let ids = span.span_context();
    ids.is_valid().then(|| TraceLink::new(ids.trace_id().to_bytes(), ids.span_id().to_bytes()))
}
