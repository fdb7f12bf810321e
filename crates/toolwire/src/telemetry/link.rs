//! [`TraceLink`]: the trace and span a receipt's invocation was recorded in.

use std::fmt;
use std::sync::OnceLock;

use serde::de::Error as _;
use serde::{Deserialize, Deserializer, Serialize, Serializer};
use tracing::Span;

/// The W3C trace id and span id of an invocation's `execute_tool` span, as an exporter
/// assigned them: what a receipt carries to find its span in a trace backend.
///
/// It serializes as `{"trace_id": "<32 hex digits>", "span_id": "<16 hex digits>"}`.
///
/// ```
/// use toolwire::telemetry::TraceLink;
///
/// let link = TraceLink::new([0x4b; 16], [0x0a; 8]);
/// let json = serde_json::to_value(link).unwrap();
/// assert_eq!(json["span_id"], "0a0a0a0a0a0a0a0a");
/// assert_eq!(serde_json::from_value::<TraceLink>(json).unwrap(), link);
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub struct TraceLink {
    /// The trace's id.
    pub trace_id: [u8; 16],
    /// The span's id.
    pub span_id: [u8; 8],
}

impl TraceLink {
    /// The link to span `span_id` of trace `trace_id`.
    pub fn new(trace_id: [u8; 16], span_id: [u8; 8]) -> Self {
        Self { trace_id, span_id }
    }
}

/// Lowercase hex, as W3C Trace Context writes ids.
struct Hex<'a>(&'a [u8]);

impl fmt::Display for Hex<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        self.0.iter().try_for_each(|byte| write!(f, "{byte:02x}"))
    }
}

impl fmt::Display for TraceLink {
    /// `trace_id-span_id`, in hex.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}-{}", Hex(&self.trace_id), Hex(&self.span_id))
    }
}

/// The wire shape: the ids as hex strings.
#[derive(Serialize, Deserialize)]
struct Wire {
    trace_id: String,
    span_id: String,
}

impl Serialize for TraceLink {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        let wire = Wire {
            trace_id: Hex(&self.trace_id).to_string(),
            span_id: Hex(&self.span_id).to_string(),
        };
        wire.serialize(serializer)
    }
}

impl<'de> Deserialize<'de> for TraceLink {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        let wire = Wire::deserialize(deserializer)?;
        let trace_id = unhex(&wire.trace_id)
            .ok_or_else(|| D::Error::custom("trace_id is not 32 hex digits"))?;
        let span_id =
            unhex(&wire.span_id).ok_or_else(|| D::Error::custom("span_id is not 16 hex digits"))?;
        Ok(Self { trace_id, span_id })
    }
}

/// `text` as `N` bytes, from exactly `2N` hex digits.
fn unhex<const N: usize>(text: &str) -> Option<[u8; N]> {
    let digits = text.as_bytes();
    if digits.len() != 2 * N {
        return None;
    }
    let mut bytes = [0; N];
    for (byte, pair) in bytes.iter_mut().zip(digits.chunks_exact(2)) {
        let pair = std::str::from_utf8(pair).ok()?;
        *byte = u8::from_str_radix(pair, 16).ok()?;
    }
    Some(bytes)
}

/// Reads the ids of a span, as the installed exporter assigned them.
pub type LinkReader = fn(&Span) -> Option<TraceLink>;

static READER: OnceLock<LinkReader> = OnceLock::new();

/// From now on, every receipt carries the link `reader` reads off its invocation's span.
/// Only the first reader set in a process counts; this returns whether it was this one.
///
/// An exporter sets it when it installs itself (`toolwire-otel` does).
pub fn link_receipts(reader: LinkReader) -> bool {
    READER.set(reader).is_ok()
}

/// The link of `span`, when a reader is set and the span is recorded.
pub(crate) fn link_of(span: &Span) -> Option<TraceLink> {
    let reader = READER.get()?;
    if span.is_disabled() {
        return None;
    }
    reader(span)
}
