//! Reading an `mcp.json` field by field, so that every mistake names its server and field.

use std::collections::BTreeMap;
use std::path::Path;

use serde_json::{Map, Value};

use super::config::{HttpConfig, McpConfig, ServerSpec, StdioConfig};
use super::config_error::{ConfigError, ConfigErrorKind};
use super::headers::check_header;
use super::oauth_settings::OAuthSettings;

impl McpConfig {
    /// Reads the `mcpServers` of an `mcp.json` text.
    ///
    /// # Errors
    ///
    /// A [`ConfigError`] naming the server and the field, when the text is not JSON, has no
    /// `mcpServers` object, or a server's entry is incomplete or has a field of the wrong type.
    pub fn from_json(text: &str) -> Result<Self, ConfigError> {
        parse(text)
    }

    /// Reads an `mcp.json` file.
    ///
    /// # Errors
    ///
    /// As [`McpConfig::from_json`], and a [`ConfigErrorKind::Io`] error naming the path when
    /// it cannot be read.
    pub fn from_path(path: impl AsRef<Path>) -> Result<Self, ConfigError> {
        let path = path.as_ref();
        let text = std::fs::read_to_string(path).map_err(|e| {
            let detail = format!("cannot read {}: {e}", path.display());
            ConfigError::in_file(ConfigErrorKind::Io, detail, Some(Box::new(e)))
        })?;
        Self::from_json(&text)
    }
}

/// Parses the text of an `mcp.json`.
fn parse(text: &str) -> Result<McpConfig, ConfigError> {
    let root: Value = serde_json::from_str(text).map_err(|e| {
        let detail = format!("not valid JSON: {e}");
        ConfigError::in_file(ConfigErrorKind::Syntax, detail, Some(Box::new(e)))
    })?;
    let servers = root.get("mcpServers").and_then(Value::as_object).ok_or_else(|| {
        let detail = "expected an object with an \"mcpServers\" object";
        ConfigError::in_file(ConfigErrorKind::Shape, detail, None)
    })?;
    let mut config = McpConfig::new();
    for (name, entry) in servers {
        let entry = Entry::new(name, entry)?;
        if entry.flag("disabled")? {
            continue;
        }
        config.insert(name.clone(), entry.server()?);
    }
    Ok(config)
}

/// One server's entry, with its name for the errors.
struct Entry<'a> {
    name: &'a str,
    fields: &'a Map<String, Value>,
}

impl<'a> Entry<'a> {
    fn new(name: &'a str, entry: &'a Value) -> Result<Self, ConfigError> {
        let fields = entry.as_object().ok_or_else(|| {
            let detail = format!("expected an object, got {}", type_name(entry));
            ConfigError::in_server(ConfigErrorKind::InvalidField, name, detail)
        })?;
        Ok(Self { name, fields })
    }

    /// The server this entry describes, by its `command` or `url`.
    fn server(&self) -> Result<ServerSpec, ConfigError> {
        let kind = self.string("type")?;
        let command = self.string("command")?;
        let url = self.string("url")?;
        match (kind.as_deref(), command, url) {
            (Some("sse"), _, _) => Err(self
                .invalid("type", "the legacy sse transport is not supported; use streamable http")),
            (Some(other), _, _) if !KNOWN_TYPES.contains(&other) => Err(self.invalid(
                "type",
                format!("unknown transport {other:?}; expected \"stdio\" or \"http\""),
            )),
            (_, Some(_), Some(_)) => {
                Err(self.invalid("url", "a server has either \"command\" or \"url\", not both"))
            }
            (Some("stdio"), None, Some(_)) => {
                Err(self.invalid("type", "\"stdio\" needs a \"command\", not a \"url\""))
            }
            (Some(kind), Some(_), None) if kind != "stdio" => {
                Err(self.invalid("type", format!("{kind:?} needs a \"url\", not a \"command\"")))
            }
            (Some("stdio") | None, None, None) => Err(self.missing("command")),
            (Some(_), None, None) => Err(self.missing("url")),
            (_, Some(command), None) => self.stdio(command),
            (_, None, Some(url)) => self.http(url),
        }
    }

    fn stdio(&self, command: String) -> Result<ServerSpec, ConfigError> {
        if command.trim().is_empty() {
            return Err(self.invalid("command", "must not be empty"));
        }
        let mut config = StdioConfig::new(command);
        config.args = self.strings("args")?;
        config.env = self.map("env")?;
        config.cwd = self.string("cwd")?.map(Into::into);
        Ok(config.into())
    }

    fn http(&self, url: String) -> Result<ServerSpec, ConfigError> {
        if !(url.starts_with("http://") || url.starts_with("https://")) {
            return Err(self.invalid("url", format!("expected an http or https url, got {url:?}")));
        }
        let mut config = HttpConfig::new(url);
        config.headers = self.map("headers")?;
        for (name, value) in &config.headers {
            check_header(name, value)
                .map_err(|detail| self.invalid(&format!("headers.{name}"), detail))?;
        }
        config.oauth = self.oauth()?;
        Ok(config.into())
    }

    /// The `oauth` object, with the field names editors use (`clientId`, `callbackPort`)
    /// or their snake-case forms.
    fn oauth(&self) -> Result<Option<OAuthSettings>, ConfigError> {
        let Some(value) = self.fields.get("oauth").filter(|v| !v.is_null()) else {
            return Ok(None);
        };
        let fields = value.as_object().ok_or_else(|| self.wrong("oauth", "an object", value))?;
        let mut settings = OAuthSettings::new();
        for (key, value) in fields {
            let field = format!("oauth.{key}");
            let text = || match value {
                Value::String(s) if !s.trim().is_empty() => Ok(s.clone()),
                Value::String(_) => Err(self.invalid(&field, "must not be empty")),
                other => Err(self.wrong(&field, "a string", other)),
            };
            match key.as_str() {
                "clientId" | "client_id" => settings.client_id = Some(text()?),
                "clientSecret" | "client_secret" => settings.client_secret = Some(text()?),
                "clientMetadataUrl" | "client_metadata_url" => {
                    let url = text()?;
                    if !url.starts_with("https://") {
                        return Err(self.invalid(&field, "must be an https url"));
                    }
                    settings.client_metadata_url = Some(url);
                }
                "scopes" | "scope" => settings.scopes = self.scopes(&field, value)?,
                "callbackPort" | "redirectPort" | "redirect_port" => {
                    let port = value.as_u64().and_then(|p| u16::try_from(p).ok());
                    let port = port.ok_or_else(|| self.wrong(&field, "a port number", value))?;
                    settings.redirect_port = Some(port);
                }
                "trustedHosts" | "trusted_hosts" => {
                    settings.trusted_hosts = self.scopes(&field, value)?;
                }
                _ => {
                    let known = "clientId, clientSecret, clientMetadataUrl, scopes, \
                                 callbackPort, trustedHosts";
                    return Err(self.invalid(&field, format!("unknown setting; expected {known}")));
                }
            }
        }
        Ok(Some(settings))
    }

    /// A list of words: an array of strings, or one string separated by spaces.
    fn scopes(&self, field: &str, value: &Value) -> Result<Vec<String>, ConfigError> {
        match value {
            Value::String(s) => Ok(s.split_whitespace().map(str::to_owned).collect()),
            Value::Array(items) => items
                .iter()
                .enumerate()
                .map(|(i, v)| match v {
                    Value::String(s) => Ok(s.clone()),
                    other => Err(self.wrong(&format!("{field}[{i}]"), "a string", other)),
                })
                .collect(),
            other => Err(self.wrong(field, "an array of strings", other)),
        }
    }

    fn string(&self, field: &str) -> Result<Option<String>, ConfigError> {
        match self.fields.get(field) {
            None | Some(Value::Null) => Ok(None),
            Some(Value::String(s)) => Ok(Some(s.clone())),
            Some(other) => Err(self.wrong(field, "a string", other)),
        }
    }

    fn flag(&self, field: &str) -> Result<bool, ConfigError> {
        match self.fields.get(field) {
            None | Some(Value::Null) => Ok(false),
            Some(Value::Bool(b)) => Ok(*b),
            Some(other) => Err(self.wrong(field, "a boolean", other)),
        }
    }

    fn strings(&self, field: &str) -> Result<Vec<String>, ConfigError> {
        let Some(value) = self.fields.get(field).filter(|v| !v.is_null()) else {
            return Ok(Vec::new());
        };
        let items = value.as_array().ok_or_else(|| self.wrong(field, "an array", value))?;
        let item = |(i, v): (usize, &Value)| match v {
            Value::String(s) => Ok(s.clone()),
            other => Err(self.wrong(&format!("{field}[{i}]"), "a string", other)),
        };
        items.iter().enumerate().map(item).collect()
    }

    fn map(&self, field: &str) -> Result<BTreeMap<String, String>, ConfigError> {
        let Some(value) = self.fields.get(field).filter(|v| !v.is_null()) else {
            return Ok(BTreeMap::new());
        };
        let entries = value.as_object().ok_or_else(|| self.wrong(field, "an object", value))?;
        let entry = |(k, v): (&String, &Value)| match v {
            Value::String(s) => Ok((k.clone(), s.clone())),
            other => Err(self.wrong(&format!("{field}.{k}"), "a string", other)),
        };
        entries.iter().map(entry).collect()
    }

    fn wrong(&self, field: &str, expected: &str, got: &Value) -> ConfigError {
        self.invalid(field, format!("expected {expected}, got {}", type_name(got)))
    }

    fn invalid(&self, field: &str, detail: impl Into<String>) -> ConfigError {
        ConfigError::in_field(ConfigErrorKind::InvalidField, self.name, field, detail)
    }

    fn missing(&self, field: &str) -> ConfigError {
        let detail = "missing; a server needs a \"command\" (stdio) or a \"url\" (http)";
        ConfigError::in_field(ConfigErrorKind::MissingField, self.name, field, detail)
    }
}

/// The values of `type` that editors write for the two supported transports.
const KNOWN_TYPES: [&str; 5] =
    ["stdio", "http", "streamable-http", "streamableHttp", "streamable_http"];

/// The JSON type of `value`, with its article, for messages.
fn type_name(value: &Value) -> &'static str {
    match value {
        Value::Null => "null",
        Value::Bool(_) => "a boolean",
        Value::Number(_) => "a number",
        Value::String(_) => "a string",
        Value::Array(_) => "an array",
        Value::Object(_) => "an object",
    }
}
