//! [`install`]: the OTLP exporter, the bridge from `tracing`, and the global subscriber.

use std::fmt;

use opentelemetry::trace::TracerProvider as _;
use opentelemetry_otlp::{Protocol, SpanExporter, WithExportConfig};
use opentelemetry_sdk::Resource;
use opentelemetry_sdk::trace::SdkTracerProvider;
use tracing::Level;
use tracing_subscriber::Layer;
use tracing_subscriber::filter::Targets;
use tracing_subscriber::layer::SubscriberExt;
use tracing_subscriber::util::SubscriberInitExt;

use crate::OtelConfig;

/// Why the export could not be set up.
#[derive(Debug)]
pub struct OtelError(String);

impl fmt::Display for OtelError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "cannot export traces over OTLP: {}", self.0)
    }
}

impl std::error::Error for OtelError {}

/// Keeps the export running; dropping it sends what is left and stops it, waiting for the
/// last batch (a few seconds at most, when the receiver is slow or gone).
#[must_use = "dropping the guard stops the export"]
pub struct OtelGuard {
    provider: SdkTracerProvider,
}

impl OtelGuard {
    /// Sends the spans ended so far, now.
    pub fn flush(&self) {
        if let Err(error) = self.provider.force_flush() {
            eprintln!("warning: the traces could not all be sent: {error}");
        }
    }
}

impl Drop for OtelGuard {
    fn drop(&mut self) {
        if let Err(error) = self.provider.shutdown() {
            eprintln!("warning: the traces could not all be sent: {error}");
        }
    }
}

impl fmt::Debug for OtelGuard {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("OtelGuard").finish_non_exhaustive()
    }
}

/// Sends toolwire's spans to `config`'s receiver from now on: installs the global
/// `tracing` subscriber, with the spans of toolwire's crates from DEBUG up (every
/// `execute_tool` span) and every other crate's from INFO up, batched on a thread of its
/// own.
///
/// Call it before starting a Tokio runtime, and drop the guard after the runtime has
/// stopped: the exporter's client blocks.
///
/// # Errors
///
/// When the exporter cannot be built, or a global subscriber is set already.
pub fn install(config: OtelConfig) -> Result<OtelGuard, OtelError> {
    toolwire::install_tls_provider();
    let exporter = SpanExporter::builder()
        .with_http()
        .with_protocol(Protocol::HttpBinary)
        .with_endpoint(config.traces_url())
        .build()
        .map_err(|error| OtelError(error.to_string()))?;
    let resource = Resource::builder().with_service_name(config.service_name.clone()).build();
    let provider =
        SdkTracerProvider::builder().with_batch_exporter(exporter).with_resource(resource).build();
    let tracer = provider.tracer("toolwire");
    let filter = Targets::new()
        .with_target("toolwire", Level::DEBUG)
        .with_target("toolwire_agent", Level::DEBUG)
        .with_target("toolwire_mcp", Level::DEBUG)
        .with_target("toolwire_journal", Level::DEBUG)
        .with_default(Level::INFO);
    let layer = tracing_opentelemetry::layer().with_tracer(tracer).with_filter(filter);
    tracing_subscriber::registry()
        .with(layer)
        .try_init()
        .map_err(|error| OtelError(format!("a tracing subscriber is set already: {error}")))?;
    Ok(OtelGuard { provider })
}
