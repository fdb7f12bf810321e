//! [`OtelConfig`]: where traces and metrics go, under which service name, and what they
//! hold.

use std::env;
use std::time::Duration;

/// The service name when none is configured.
const DEFAULT_SERVICE: &str = "toolwire";
/// How often metrics are sent when `OTEL_METRIC_EXPORT_INTERVAL` does not say.
const DEFAULT_METRIC_INTERVAL: Duration = Duration::from_secs(60);

/// Where the traces and metrics go, the `service.name` they carry, and whether spans hold
/// the calls' arguments and results.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub struct OtelConfig {
    /// The receiver's base URL, such as `http://127.0.0.1:4318`: traces are posted to
    /// `{endpoint}/v1/traces` and metrics to `{endpoint}/v1/metrics`.
    pub endpoint: String,
    /// The full URL for traces, when it is not the base URL's.
    pub traces_endpoint: Option<String>,
    /// The full URL for metrics, when it is not the base URL's.
    pub metrics_endpoint: Option<String>,
    /// The `service.name` resource attribute.
    pub service_name: String,
    /// Whether metrics are sent at all.
    pub metrics: bool,
    /// How often metrics are sent (they are sent once more at shutdown).
    pub metric_interval: Duration,
    /// Whether `execute_tool` spans carry the arguments and result of each call (see
    /// `toolwire::telemetry::record_content`). Off by default.
    pub capture_content: bool,
}

impl OtelConfig {
    /// Traces and metrics to the receiver at `endpoint`, as service `toolwire`, without
    /// content.
    pub fn new(endpoint: impl Into<String>) -> Self {
        Self {
            endpoint: endpoint.into(),
            traces_endpoint: None,
            metrics_endpoint: None,
            service_name: DEFAULT_SERVICE.to_owned(),
            metrics: true,
            metric_interval: DEFAULT_METRIC_INTERVAL,
            capture_content: false,
        }
    }

    /// The same, as service `name`.
    pub fn service_name(mut self, name: impl Into<String>) -> Self {
        self.service_name = name.into();
        self
    }

    /// The same, with the calls' arguments and results on their spans, or not.
    pub fn capture_content(mut self, on: bool) -> Self {
        self.capture_content = on;
        self
    }

    /// The same, with metrics sent every `interval`.
    pub fn metric_interval(mut self, interval: Duration) -> Self {
        self.metric_interval = interval;
        self
    }

    /// The configuration the standard variables give; `None` when no endpoint is set, or
    /// `OTEL_SDK_DISABLED` is `true`.
    ///
    /// - `OTEL_EXPORTER_OTLP_ENDPOINT`, and `OTEL_EXPORTER_OTLP_TRACES_ENDPOINT` and
    ///   `OTEL_EXPORTER_OTLP_METRICS_ENDPOINT` for one signal;
    /// - `OTEL_SERVICE_NAME`;
    /// - `OTEL_METRICS_EXPORTER=none` sends no metrics; `OTEL_METRIC_EXPORT_INTERVAL` is in
    ///   milliseconds;
    /// - `OTEL_INSTRUMENTATION_GENAI_CAPTURE_MESSAGE_CONTENT=true` records content. Under
    ///   `OTEL_SEMCONV_STABILITY_OPT_IN=gen_ai_latest_experimental`, the variable takes the
    ///   latest conventions' values instead: `SPAN_ONLY` or `SPAN_AND_EVENT` record it on
    ///   spans, `NO_CONTENT` and `EVENT_ONLY` do not (toolwire writes no content events).
    ///
    /// toolwire emits only the latest experimental GenAI conventions, whatever the opt-in
    /// says: it has no older version to keep.
    pub fn from_env() -> Option<Self> {
        Self::from_vars(|name| env::var(name).ok(), None)
    }

    /// What the standard variables say, but with `endpoint` as the receiver for both
    /// signals, whatever the endpoint variables say (a `--otlp URL` flag); `None` only when
    /// `OTEL_SDK_DISABLED` is `true`.
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
                let traces = set("OTEL_EXPORTER_OTLP_TRACES_ENDPOINT");
                let base = set("OTEL_EXPORTER_OTLP_ENDPOINT");
                let mut config = Self::new(base.or_else(|| traces.clone())?);
                config.traces_endpoint = traces;
                config.metrics_endpoint = set("OTEL_EXPORTER_OTLP_METRICS_ENDPOINT");
                config
            }
        };
        if let Some(name) = set("OTEL_SERVICE_NAME") {
            config = config.service_name(name);
        }
        config.metrics =
            !set("OTEL_METRICS_EXPORTER").is_some_and(|v| v.eq_ignore_ascii_case("none"));
        let interval = set("OTEL_METRIC_EXPORT_INTERVAL").and_then(|ms| ms.parse().ok());
        if let Some(ms) = interval.filter(|ms| *ms > 0) {
            config.metric_interval = Duration::from_millis(ms);
        }
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

    /// The URL traces are posted to.
    pub fn traces_url(&self) -> String {
        self.traces_endpoint.clone().unwrap_or_else(|| signal_url(&self.endpoint, "traces"))
    }

    /// The URL metrics are posted to.
    pub fn metrics_url(&self) -> String {
        self.metrics_endpoint.clone().unwrap_or_else(|| signal_url(&self.endpoint, "metrics"))
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
    fn the_standard_variables_configure_the_export() {
        assert_eq!(from(&[]), None);
        assert_eq!(from(&[("OTEL_EXPORTER_OTLP_ENDPOINT", " ")]), None);
        let config = from(&[
            ("OTEL_EXPORTER_OTLP_ENDPOINT", "http://collector:4318/"),
            ("OTEL_SERVICE_NAME", "ops-agent"),
            ("OTEL_METRIC_EXPORT_INTERVAL", "500"),
        ]);
        let config = config.unwrap_or_else(|| OtelConfig::new("missing"));
        assert_eq!(config.traces_url(), "http://collector:4318/v1/traces");
        assert_eq!(config.metrics_url(), "http://collector:4318/v1/metrics");
        assert_eq!(config.service_name, "ops-agent");
        assert_eq!(config.metric_interval, Duration::from_millis(500));
        assert!(config.metrics && !config.capture_content);
        let split = from(&[
            ("OTEL_EXPORTER_OTLP_ENDPOINT", "http://a:4318"),
            ("OTEL_EXPORTER_OTLP_TRACES_ENDPOINT", "http://b:4318/v1/traces"),
            ("OTEL_EXPORTER_OTLP_METRICS_ENDPOINT", "http://c:9090/otlp/v1/metrics"),
            ("OTEL_METRICS_EXPORTER", "none"),
        ]);
        let split = split.unwrap_or_else(|| OtelConfig::new("missing"));
        assert_eq!(split.traces_url(), "http://b:4318/v1/traces");
        assert_eq!(split.metrics_url(), "http://c:9090/otlp/v1/metrics");
        assert!(!split.metrics);
        let traces_only = from(&[("OTEL_EXPORTER_OTLP_TRACES_ENDPOINT", "http://b/v1/traces")]);
        assert_eq!(traces_only.map(|c| c.traces_url()).as_deref(), Some("http://b/v1/traces"));
        let off =
            from(&[("OTEL_EXPORTER_OTLP_ENDPOINT", "http://a"), ("OTEL_SDK_DISABLED", "TRUE")]);
        assert_eq!(off, None);
        let vars = [
            ("OTEL_EXPORTER_OTLP_TRACES_ENDPOINT", "http://b/v1/traces"),
            ("OTEL_SERVICE_NAME", "x"),
        ];
        let vars: HashMap<&str, &str> = vars.into_iter().collect();
        let flag = OtelConfig::from_vars(
            |n| vars.get(n).map(|v| (*v).to_owned()),
            Some("http://f".into()),
        );
        let flag = flag.unwrap_or_else(|| OtelConfig::new("missing"));
        assert_eq!(
            (flag.traces_url().as_str(), flag.service_name.as_str()),
            ("http://f/v1/traces", "x")
        );
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
