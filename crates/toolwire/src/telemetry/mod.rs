//! What toolwire tells an observability pipeline, beyond its spans.
//!
//! toolwire's crates depend on `tracing` only. Their spans follow the OpenTelemetry GenAI
//! semantic conventions (semantic-conventions-genai v0.1.0): every invocation, whichever way
//! it is made, is one `execute_tool {tool}` span (kind INTERNAL) with `gen_ai.operation.name`,
//! `gen_ai.tool.name`, `gen_ai.tool.type`, `gen_ai.tool.description`, `gen_ai.tool.call.id`,
//! `error.type` on failure, and `toolwire.invocation_id`, `toolwire.outcome`,
//! `toolwire.policy` (the policy step's verdict), `toolwire.replayed` (a journal handed
//! back a stored result) and `toolwire.result.parts` (a result's content parts, each by kind,
//! MIME type and size, never its bytes; see [`media::summary`](crate::media::summary)).
//! Beyond the spans, an exporter, such as the `toolwire-otel` crate,
//! has three switches:
//!
//! - **Metrics.** Each measurement is a `TRACE` event of target [`METRICS_TARGET`], with a
//!   `metric` field naming the instrument (such as `gen_ai.execute_tool.duration`), a
//!   `value` field, and the measurement's attributes as its other fields. Nothing is
//!   measured while the operation's own span is disabled.
//! - **Receipt links.** With a reader set by [`link_receipts`], every [`Receipt`] carries
//!   the [`TraceLink`] of its invocation's span.
//! - **Content.** With [`record_content`] on, the `execute_tool` span also carries the call's
//!   arguments and result (`gen_ai.tool.call.arguments` and `gen_ai.tool.call.result`, the
//!   result's JSON: its parts' bytes are never recorded), each clipped to [`CONTENT_LIMIT`]
//!   bytes. It is off by default: arguments and results
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
