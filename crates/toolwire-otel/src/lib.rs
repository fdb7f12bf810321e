//! toolwire's traces, exported over OTLP.
//!
//! toolwire's crates emit `tracing` spans named and labelled as the OpenTelemetry GenAI
//! semantic conventions (semantic-conventions-genai v0.1.0) describe agents:
//! `execute_tool` for every invocation, `invoke_agent` and `chat` for the agent loop, and
//! report the conventions' duration and token metrics as `tracing` events. This crate
//! installs a subscriber that sends the spans (and nothing else below INFO) and the metrics
//! to an OTLP receiver over HTTP with protobuf bodies: the OpenTelemetry Collector, Jaeger, Grafana
//! Tempo, Langfuse, Logfire, Phoenix, Datadog's agent. A program that does not want it
//! does not build it: the other crates depend on `tracing` only.
//!
//! ```no_run
//! let config = toolwire_otel::OtelConfig::from_env(); // OTEL_EXPORTER_OTLP_ENDPOINT, ...
//! let _guard = match config {
//!     Some(config) => Some(toolwire_otel::install(config)?),
//!     None => None,
//! };
//! // ... run the program; dropping the guard flushes what is left.
//! # Ok::<(), toolwire_otel::OtelError>(())
//! ```

mod config;
mod install;
mod metrics;

pub use config::OtelConfig;
pub use install::{OtelError, OtelErrorKind, OtelGuard, install};
