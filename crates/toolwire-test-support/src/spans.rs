//! A `tracing` layer that keeps every span as it closes: its name, its parent's name and
//! `otel.kind`, its fields, the messages of the events inside it, and its metric events. The
//! span tests of toolwire, toolwire-agent, toolwire-journal and toolwire-mcp use it.

use std::collections::BTreeMap;
use std::fmt::Debug;
use std::sync::{Arc, Mutex, PoisonError};

use tracing::field::{Field, Visit};
use tracing::span::{Attributes, Id, Record};
use tracing::{Event, Subscriber};
use tracing_subscriber::Layer;
use tracing_subscriber::layer::Context;
use tracing_subscriber::registry::LookupSpan;

/// A closed span.
#[derive(Debug, Clone, Default)]
pub struct Closed {
    /// Its name.
    pub name: String,
    /// Its parent's name, when it has a parent.
    pub parent: Option<String>,
    /// The parent's `otel.kind`, when it has one.
    pub parent_kind: Option<String>,
    /// Its fields, as last recorded, each as text.
    pub fields: BTreeMap<String, String>,
    /// The messages of the events inside it (other than metric events).
    pub events: Vec<String>,
    /// The fields of the metric events (target `toolwire_metrics`) inside it.
    pub metrics: Vec<BTreeMap<String, String>>,
}

/// The layer; its clones share what they keep.
#[derive(Debug, Clone, Default)]
pub struct Capture(Arc<Mutex<Vec<Closed>>>);

impl Capture {
    /// The spans closed so far, in the order they closed.
    pub fn spans(&self) -> Vec<Closed> {
        self.0.lock().unwrap_or_else(PoisonError::into_inner).clone()
    }
}

struct Fields<'a>(&'a mut BTreeMap<String, String>);

impl Visit for Fields<'_> {
    fn record_debug(&mut self, field: &Field, value: &dyn Debug) {
        self.0.insert(field.name().to_owned(), format!("{value:?}"));
    }
    fn record_str(&mut self, field: &Field, value: &str) {
        self.0.insert(field.name().to_owned(), value.to_owned());
    }
}

impl<S: Subscriber + for<'a> LookupSpan<'a>> Layer<S> for Capture {
    fn on_new_span(&self, attrs: &Attributes<'_>, id: &Id, ctx: Context<'_, S>) {
        let Some(span) = ctx.span(id) else { return };
        let parent = span.parent();
        let parent_kind = parent.as_ref().and_then(|parent| {
            parent.extensions().get::<Closed>().and_then(|c| c.fields.get("otel.kind").cloned())
        });
        let mut closed = Closed {
            name: attrs.metadata().name().to_owned(),
            parent: parent.map(|p| p.name().to_owned()),
            parent_kind,
            ..Closed::default()
        };
        attrs.record(&mut Fields(&mut closed.fields));
        span.extensions_mut().insert(closed);
    }

    fn on_record(&self, id: &Id, values: &Record<'_>, ctx: Context<'_, S>) {
        let Some(span) = ctx.span(id) else { return };
        if let Some(closed) = span.extensions_mut().get_mut::<Closed>() {
            values.record(&mut Fields(&mut closed.fields));
        }
    }

    fn on_event(&self, event: &Event<'_>, ctx: Context<'_, S>) {
        let Some(span) = ctx.event_span(event) else { return };
        let mut fields = BTreeMap::new();
        event.record(&mut Fields(&mut fields));
        let mut extensions = span.extensions_mut();
        let Some(closed) = extensions.get_mut::<Closed>() else { return };
        if event.metadata().target() == toolwire::telemetry::METRICS_TARGET {
            closed.metrics.push(fields);
        } else {
            closed.events.push(fields.get("message").cloned().unwrap_or_default());
        }
    }

    fn on_close(&self, id: Id, ctx: Context<'_, S>) {
        let Some(span) = ctx.span(&id) else { return };
        if let Some(closed) = span.extensions_mut().remove::<Closed>() {
            self.0.lock().unwrap_or_else(PoisonError::into_inner).push(closed);
        }
    }
}

/// Runs `body` under a subscriber that keeps its spans (on this thread: a test runs its
/// runtime here, current-thread); what it returned, and the spans.
///
/// Other tests of the binary run at once, with no subscriber. While exactly one dispatcher
/// is registered in the process, `tracing-core` rebuilds a callsite's interest from the
/// registering thread's own default alone: a callsite first hit by another test while this
/// subscriber is the only one was cached as never enabled, for every thread (regression: CI
/// lost an `invoke_agent` span once, `chat` spans once, and a server's `execute_tool` span
/// once). A second dispatcher that lives as long as the process keeps that shortcut off, so
/// each callsite's interest is made from every live dispatcher, this one included.
pub fn traced<T>(body: impl FnOnce() -> T) -> (T, Vec<Closed>) {
    use std::sync::OnceLock;

    use tracing::Dispatch;
    use tracing::subscriber::NoSubscriber;
    use tracing_subscriber::layer::SubscriberExt;

    static ALWAYS_ANOTHER: OnceLock<Dispatch> = OnceLock::new();
    ALWAYS_ANOTHER.get_or_init(|| Dispatch::new(NoSubscriber::default()));
    let capture = Capture::default();
    let subscriber = tracing_subscriber::registry().with(capture.clone());
    let output = tracing::subscriber::with_default(subscriber, || {
        // Callsites cached while no dispatcher was registered are made again.
        tracing::callsite::rebuild_interest_cache();
        body()
    });
    (output, capture.spans())
}
