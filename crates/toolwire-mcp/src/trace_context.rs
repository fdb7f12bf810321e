//! The W3C trace context of a call in MCP's `_meta` (`traceparent`, `tracestate`): put there
//! by the client from its current span, read by the server into its own, so that one trace
//! spans the agent, the MCP hop and the tool. Only with the `otel` feature, for spans that
//! `tracing-opentelemetry` exports; without it both ends do nothing.

use rmcp::model::MetaObject;

/// Writes the trace context of the current span into `meta`, when it has one.
#[cfg(feature = "client")]
#[cfg_attr(not(feature = "otel"), allow(unused_variables))]
pub(crate) fn inject(meta: &mut MetaObject) {
    #[cfg(feature = "otel")]
    {
        use opentelemetry::trace::TraceContextExt;
        use tracing_opentelemetry::OpenTelemetrySpanExt;

        let context = tracing::Span::current().context();
        let span = context.span();
        let current = span.span_context();
        if !current.is_valid() {
            return;
        }
        let flags = current.trace_flags().to_u8();
        meta.set_traceparent(format!(
            "00-{}-{}-{flags:02x}",
            current.trace_id(),
            current.span_id()
        ));
        let state = current.trace_state().header();
        if !state.is_empty() {
            meta.set_tracestate(state);
        }
    }
}

/// Makes `span` a child of the trace context in `meta`, when it holds a valid one; a
/// malformed `traceparent` is ignored, as W3C Trace Context says.
#[cfg(feature = "server")]
#[cfg_attr(not(feature = "otel"), allow(unused_variables))]
pub(crate) fn continue_in(span: &tracing::Span, meta: &MetaObject) {
    #[cfg(feature = "otel")]
    {
        use opentelemetry::Context;
        use opentelemetry::trace::TraceContextExt;
        use tracing_opentelemetry::OpenTelemetrySpanExt;

        let Some(parent) =
            meta.get_traceparent().and_then(|text| parse(text, meta.get_tracestate()))
        else {
            return;
        };
        // Fails only when the span has started already, which a new one has not.
        let _ = span.set_parent(Context::new().with_remote_span_context(parent));
    }
}

/// A `traceparent` (`00-{trace id}-{span id}-{flags}`), with its `tracestate`.
#[cfg(all(feature = "otel", feature = "server"))]
fn parse(traceparent: &str, tracestate: Option<&str>) -> Option<opentelemetry::trace::SpanContext> {
    use std::str::FromStr;

    use opentelemetry::trace::{SpanContext, SpanId, TraceFlags, TraceId, TraceState};

    let mut parts = traceparent.trim().split('-');
    let (version, trace, span, flags) =
        (parts.next()?, parts.next()?, parts.next()?, parts.next()?);
    let hex = |text: &str, len: usize| {
        text.len() == len && text.bytes().all(|b| b.is_ascii_hexdigit() && !b.is_ascii_uppercase())
    };
    // Version ff is invalid; a later version may add fields, but only version 00 has exactly four.
    if !hex(version, 2) || version == "ff" || (version == "00" && parts.next().is_some()) {
        return None;
    }
    if !hex(trace, 32) || !hex(span, 16) || !hex(flags, 2) {
        return None;
    }
    let trace = TraceId::from_hex(trace).ok()?;
    let span = SpanId::from_hex(span).ok()?;
    if trace == TraceId::INVALID || span == SpanId::INVALID {
        return None;
    }
    let flags = TraceFlags::new(u8::from_str_radix(flags, 16).ok()?);
    let state = tracestate.and_then(|text| TraceState::from_str(text).ok()).unwrap_or_default();
    Some(SpanContext::new(trace, span, flags, true, state))
}

#[cfg(all(test, feature = "otel", feature = "server"))]
mod tests {
    use super::parse;

    #[test]
    fn a_traceparent_is_read_only_when_well_formed() {
        let good = "00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01";
        let context =
            parse(good, Some("vendor=x")).map(|c| (c.trace_id().to_string(), c.is_remote()));
        assert_eq!(context, Some(("0af7651916cd43dd8448eb211c80319c".to_owned(), true)));
        for bad in [
            "",
            "00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331",
            "ff-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01",
            "00-00000000000000000000000000000000-b7ad6b7169203331-01",
            "00-0af7651916cd43dd8448eb211c80319c-0000000000000000-01",
            "00-0AF7651916CD43DD8448EB211C80319C-b7ad6b7169203331-01",
            "00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01-extra",
            "00-zzf7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01",
        ] {
            assert!(parse(bad, None).is_none(), "{bad:?} was read");
        }
    }
}
