//! [`OtelConfig`]: where traces go, and under which service name.

use std::env;

/// The service name when none is configured.
const DEFAULT_SERVICE: &str = "toolwire";

/// Where the traces go: an OTLP/HTTP endpoint, and the `service.name` they carry.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct OtelConfig {
    /// The receiver's base URL, such as `http://127.0.0.1:4318`; traces are posted to
    /// `{endpoint}/v1/traces` (unless it already ends so).
    pub endpoint: String,
    /// The `service.name` resource attribute.
    pub service_name: String,
}

impl OtelConfig {
    /// Traces to the receiver at `endpoint`, as service `toolwire`.
    pub fn new(endpoint: impl Into<String>) -> Self {
        Self { endpoint: endpoint.into(), service_name: DEFAULT_SERVICE.to_owned() }
    }

    /// The same, as service `name`.
    pub fn service_name(mut self, name: impl Into<String>) -> Self {
        self.service_name = name.into();
        self
    }

    /// The configuration the standard variables give: `OTEL_EXPORTER_OTLP_TRACES_ENDPOINT`
    /// or `OTEL_EXPORTER_OTLP_ENDPOINT`, and `OTEL_SERVICE_NAME`; `None` when no endpoint
    /// is set (or `OTEL_SDK_DISABLED` is `true`).
    pub fn from_env() -> Option<Self> {
        Self::from_vars(|name| env::var(name).ok())
    }

    /// [`from_env`](Self::from_env), reading variables through `var`.
    fn from_vars(var: impl Fn(&str) -> Option<String>) -> Option<Self> {
        if var("OTEL_SDK_DISABLED").is_some_and(|v| v.trim().eq_ignore_ascii_case("true")) {
            return None;
        }
        let set = |name: &str| var(name).filter(|value| !value.trim().is_empty());
        let endpoint = set("OTEL_EXPORTER_OTLP_TRACES_ENDPOINT")
            .or_else(|| set("OTEL_EXPORTER_OTLP_ENDPOINT"))?;
        let mut config = Self::new(endpoint.trim());
        if let Some(name) = set("OTEL_SERVICE_NAME") {
            config = config.service_name(name.trim());
        }
        Some(config)
    }

    /// The URL traces are posted to.
    pub fn traces_url(&self) -> String {
        let base = self.endpoint.trim_end_matches('/');
        if base.ends_with("/v1/traces") { base.to_owned() } else { format!("{base}/v1/traces") }
    }
}

#[cfg(test)]
mod tests {
    use std::collections::HashMap;

    use super::*;

    fn from(vars: &[(&str, &str)]) -> Option<OtelConfig> {
        let vars: HashMap<String, String> =
            vars.iter().map(|(k, v)| ((*k).to_owned(), (*v).to_owned())).collect();
        OtelConfig::from_vars(|name| vars.get(name).cloned())
    }

    #[test]
    fn the_standard_variables_configure_the_export() {
        assert_eq!(from(&[]), None);
        assert_eq!(from(&[("OTEL_EXPORTER_OTLP_ENDPOINT", " ")]), None);
        let config = from(&[
            ("OTEL_EXPORTER_OTLP_ENDPOINT", "http://collector:4318/"),
            ("OTEL_SERVICE_NAME", "ops-agent"),
        ]);
        let config = config.unwrap_or_else(|| OtelConfig::new("missing"));
        assert_eq!(config.traces_url(), "http://collector:4318/v1/traces");
        assert_eq!(config.service_name, "ops-agent");
        let traces = from(&[
            ("OTEL_EXPORTER_OTLP_ENDPOINT", "http://a:4318"),
            ("OTEL_EXPORTER_OTLP_TRACES_ENDPOINT", "http://b:4318/v1/traces"),
        ]);
        assert_eq!(traces.map(|c| c.traces_url()).as_deref(), Some("http://b:4318/v1/traces"));
        let off =
            from(&[("OTEL_EXPORTER_OTLP_ENDPOINT", "http://a"), ("OTEL_SDK_DISABLED", "TRUE")]);
        assert_eq!(off, None);
    }
}
