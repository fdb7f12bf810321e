//! What toolwire tells an observability pipeline, beyond its spans.
//!
//! toolwire's crates depend on `tracing` only. Their spans follow the OpenTelemetry GenAI
//! semantic conventions (see [`execute_tool`](crate#traces)), and three process-wide
//! switches let an exporter, such as the `toolwire-otel` crate, go further:
//!
//! - **Metrics.** Each measurement is a `TRACE` event of target [`METRICS_TARGET`], with a
//!   `metric` field naming the instrument (such as `gen_ai.execute_tool.duration`), a
//!   `value` field, and the measurement's attributes as its other fields. Nothing is
//!   measured while the operation's own span is disabled.
//! - **Receipt links.** With a reader set by [`link_receipts`], every [`Receipt`] carries
//!   the [`TraceLink`] of its invocation's span.
//! - **Content.** With [`record_content`] on, the `execute_tool` span also carries the call's
//!   arguments and result (`gen_ai.tool.call.arguments` and `gen_ai.tool.call.result`),
//!   each clipped to [`CONTENT_LIMIT`] bytes. It is off by default: arguments and results
//!   may hold what a trace backend should not keep.
//!
//! [`Receipt`]: crate::Receipt

mod content;
mod link;
mod metric;

pub use content::{CONTENT_LIMIT, record_content};
pub(crate) use content::{clipped, content_on};
pub(crate) use link::link_of;
pub use link::{LinkReader, TraceLink, link_receipts};
pub(crate) use metric::tool_duration;

/// The target of toolwire's metric events (see the [module docs](self)).
pub const METRICS_TARGET: &str = "toolwire_metrics";
