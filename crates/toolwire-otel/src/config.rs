//! [`OtelConfig`]: where traces and metrics go, under which service name, and what they
//! hold.

use std::env;
use std::time::Duration;

/// The service name when neither the program nor `OTEL_SERVICE_NAME` gives one.
pub(crate) const DEFAULT_SERVICE: &str = "toolwire";

/// Where the traces and metrics go, the `service.name` they carry, and whether spans hold
/// the calls' arguments and results.
///
/// What the OpenTelemetry SDK reads from its standard variables itself is left to it: a
/// field left `None` means that the SDK reads its variable (`OTEL_EXPORTER_OTLP_ENDPOINT`
/// and the per-signal `OTEL_EXPORTER_OTLP_TRACES_ENDPOINT` and
/// `OTEL_EXPORTER_OTLP_METRICS_ENDPOINT`, `OTEL_SERVICE_NAME` and `OTEL_RESOURCE_ATTRIBUTES`,
/// `OTEL_METRIC_EXPORT_INTERVAL`), with its own defaults (and `toolwire` as the service name
/// when none is set).
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub struct OtelConfig {
    /// The receiver's base URL, such as `http://127.0.0.1:4318`: traces are posted to
    /// `{endpoint}/v1/traces` and metrics to `{endpoint}/v1/metrics`. `None`: the SDK's
    /// variables say where.
    pub endpoint: Option<String>,
    /// The `service.name` resource attribute. `None`: `OTEL_SERVICE_NAME`, else `toolwire`.
    pub service_name: Option<String>,
    /// Whether metrics are sent at all.
    pub metrics: bool,
    /// How often metrics are sent (they are sent once more at shutdown). `None`:
    /// `OTEL_METRIC_EXPORT_INTERVAL`, else every 60 seconds.
    pub metric_interval: Option<Duration>,
    /// Whether `execute_tool` spans carry the arguments and result of each call (see
    /// `toolwire::telemetry::record_content`). Off by default.
    pub capture_content: bool,
}

impl OtelConfig {
    /// Traces and metrics to the receiver at `endpoint`, without content; the rest as the
    /// SDK's variables say.
    pub fn new(endpoint: impl Into<String>) -> Self {
        Self {
            endpoint: Some(endpoint.into()),
            service_name: None,
            metrics: true,
            metric_interval: None,
            capture_content: false,
        }
    }

    /// The same, as service `name`.
    pub fn service_name(mut self, name: impl Into<String>) -> Self {
        self.service_name = Some(name.into());
        self
    }

    /// The same, with the calls' arguments and results on their spans, or not.
    pub fn capture_content(mut self, on: bool) -> Self {
        self.capture_content = on;
        self
    }

    /// The same, with metrics sent every `interval`.
    pub fn metric_interval(mut self, interval: Duration) -> Self {
        self.metric_interval = Some(interval);
        self
    }

    /// The export the standard variables ask for; `None` when they set no endpoint, or
    /// `OTEL_SDK_DISABLED` is `true`. Where the export goes, the service name and the metric
    /// interval are left to the SDK, which reads its variables itself; toolwire reads those the
    /// SDK does not act on:
    ///
    /// - `OTEL_SDK_DISABLED=true`, and whether an endpoint is set at all;
    /// - `OTEL_METRICS_EXPORTER=none` sends no metrics;
    /// - `OTEL_INSTRUMENTATION_GENAI_CAPTURE_MESSAGE_CONTENT=true` records content. Under
    ///   `OTEL_SEMCONV_STABILITY_OPT_IN=gen_ai_latest_experimental`, the variable takes the
    ///   latest conventions' values instead: `SPAN_ONLY` or `SPAN_AND_EVENT` record content on
    ///   the spans, and `NO_CONTENT` (like `EVENT_ONLY`, since toolwire has no events) does
    ///   not.
    pub fn from_env() -> Option<Self> {
        Self::from_vars(|name| env::var(name).ok(), None)
    }

    /// The export to the receiver at `endpoint` (such as a command line's), the rest as
    /// [`from_env`](Self::from_env) reads it; `None` when `OTEL_SDK_DISABLED` is `true`.
    pub fn from_env_at(endpoint: impl Into<String>) -> Option<Self> {
        Self::from_vars(|name| env::var(name).ok(), Some(endpoint.into()))
    }

    /// [`from_env`](Self::from_env), reading variables through `var`, `endpoint` replacing
    /// theirs.
    fn from_vars(var: impl Fn(&str) -> Option<String>, endpoint: Option<String>) -> Option<Self> {
        let set = |name: &str| {
            var(name).map(|value| value.trim().to_owned()).filter(|value| !value.is_empty())
        };
        if set("OTEL_SDK_DISABLED").is_some_and(|v| v.eq_ignore_ascii_case("true")) {
            return None;
        }
        let mut config = match endpoint {
            Some(endpoint) => Self::new(endpoint),
            None => {
                set("OTEL_EXPORTER_OTLP_ENDPOINT")
                    .or_else(|| set("OTEL_EXPORTER_OTLP_TRACES_ENDPOINT"))?;
                Self { endpoint: None, ..Self::new(String::new()) }
            }
        };
        config.metrics =
            !set("OTEL_METRICS_EXPORTER").is_some_and(|v| v.eq_ignore_ascii_case("none"));
        let latest = set("OTEL_SEMCONV_STABILITY_OPT_IN").is_some_and(|opt_in| {
            opt_in.split(',').any(|v| v.trim() == "gen_ai_latest_experimental")
        });
        let content = set("OTEL_INSTRUMENTATION_GENAI_CAPTURE_MESSAGE_CONTENT").unwrap_or_default();
        config.capture_content = if latest {
            ["SPAN_ONLY", "SPAN_AND_EVENT"].iter().any(|v| content.eq_ignore_ascii_case(v))
        } else {
            content.eq_ignore_ascii_case("true")
        };
        Some(config)
    }

    /// The URL traces are posted to, when the program names the receiver; `None` leaves it to
    /// the SDK's variables.
    pub fn traces_url(&self) -> Option<String> {
        self.endpoint.as_deref().map(|endpoint| signal_url(endpoint, "traces"))
    }

    /// The URL metrics are posted to, when the program names the receiver; `None` leaves it
    /// to the SDK's variables.
    pub fn metrics_url(&self) -> Option<String> {
        self.endpoint.as_deref().map(|endpoint| signal_url(endpoint, "metrics"))
    }
}

/// `{base}/v1/{signal}`, unless `base` names it already.
fn signal_url(base: &str, signal: &str) -> String {
    let base = base.trim_end_matches('/');
    let path = format!("/v1/{signal}");
    if base.ends_with(&path) { base.to_owned() } else { format!("{base}{path}") }
}

#[cfg(test)]
mod tests {
    use std::collections::HashMap;

    use super::*;

    fn from(vars: &[(&str, &str)]) -> Option<OtelConfig> {
        let vars: HashMap<String, String> =
            vars.iter().map(|(k, v)| ((*k).to_owned(), (*v).to_owned())).collect();
        OtelConfig::from_vars(|name| vars.get(name).cloned(), None)
    }

    #[test]
    fn the_sdks_own_variables_are_left_to_the_sdk() {
        assert_eq!(from(&[]), None);
        assert_eq!(from(&[("OTEL_EXPORTER_OTLP_ENDPOINT", " ")]), None);
        let config = from(&[
            ("OTEL_EXPORTER_OTLP_ENDPOINT", "http://collector:4318/"),
            ("OTEL_SERVICE_NAME", "ops-agent"),
            ("OTEL_METRIC_EXPORT_INTERVAL", "500"),
        ]);
        let config = config.unwrap_or_else(|| OtelConfig::new("missing"));
        // The SDK reads these itself: toolwire sets none of them.
        assert_eq!((config.traces_url(), config.metrics_url()), (None, None));
        assert_eq!((config.service_name, config.metric_interval), (None, None));
        assert!(config.metrics && !config.capture_content);
        let traces_only = from(&[("OTEL_EXPORTER_OTLP_TRACES_ENDPOINT", "http://b/v1/traces")]);
        assert!(traces_only.is_some());
        let no_metrics =
            from(&[("OTEL_EXPORTER_OTLP_ENDPOINT", "http://a"), ("OTEL_METRICS_EXPORTER", "none")]);
        assert!(no_metrics.is_some_and(|config| !config.metrics));
        let off =
            from(&[("OTEL_EXPORTER_OTLP_ENDPOINT", "http://a"), ("OTEL_SDK_DISABLED", "TRUE")]);
        assert_eq!(off, None);
        let flag = OtelConfig::from_vars(|_| None, Some("http://f".into()));
        let flag = flag.unwrap_or_else(|| OtelConfig::new("missing"));
        assert_eq!(flag.traces_url().as_deref(), Some("http://f/v1/traces"));
        assert_eq!(flag.metrics_url().as_deref(), Some("http://f/v1/metrics"));
    }

    #[test]
    fn content_is_recorded_only_when_asked_in_the_form_the_opt_in_selects() {
        let content = |vars: &[(&str, &str)]| {
            let mut all = vec![("OTEL_EXPORTER_OTLP_ENDPOINT", "http://a")];
            all.extend_from_slice(vars);
            from(&all).is_some_and(|config| config.capture_content)
        };
        let capture = "OTEL_INSTRUMENTATION_GENAI_CAPTURE_MESSAGE_CONTENT";
        let opt_in = ("OTEL_SEMCONV_STABILITY_OPT_IN", "http, gen_ai_latest_experimental");
        assert!(!content(&[]));
        assert!(content(&[(capture, "true")]));
        assert!(!content(&[(capture, "SPAN_ONLY")]), "the latest values need the opt-in");
        assert!(content(&[(capture, "span_only"), opt_in]));
        assert!(content(&[(capture, "SPAN_AND_EVENT"), opt_in]));
        assert!(!content(&[(capture, "EVENT_ONLY"), opt_in]));
        assert!(!content(&[(capture, "true"), opt_in]), "under the opt-in, true is no value");
        assert!(!content(&[(capture, "NO_CONTENT"), opt_in]));
    }
}
