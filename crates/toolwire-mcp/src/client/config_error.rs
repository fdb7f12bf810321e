//! [`ConfigError`]: an `mcp.json` that cannot be used, naming the server and the field.

use std::fmt;

/// What kind of mistake a [`ConfigError`] reports. New kinds may be added.
#[non_exhaustive]
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum ConfigErrorKind {
    /// The file could not be read.
    Io,
    /// The text is not JSON.
    Syntax,
    /// The root is not an object with an `mcpServers` object.
    Shape,
    /// A server lacks a field it needs (`command` or `url`).
    MissingField,
    /// A field has the wrong type or an unusable value.
    InvalidField,
}

/// An `mcp.json` that cannot be used; returned by [`McpConfig`](super::McpConfig)'s
/// constructors.
///
/// Its message names the server and the field:
///
/// ```
/// use toolwire_mcp::client::{ConfigErrorKind, McpConfig};
///
/// let err = McpConfig::from_json(r#"{"mcpServers": {"files": {"command": 42}}}"#).unwrap_err();
/// assert_eq!(err.kind(), ConfigErrorKind::InvalidField);
/// assert_eq!(err.server(), Some("files"));
/// assert_eq!(err.field(), Some("command"));
/// assert_eq!(err.to_string(), r#"mcp.json: server "files": field "command": expected a string, got a number"#);
/// ```
#[derive(Debug)]
pub struct ConfigError {
    kind: ConfigErrorKind,
    server: Option<String>,
    field: Option<String>,
    detail: String,
    source: Option<Box<dyn std::error::Error + Send + Sync>>,
}

impl ConfigError {
    /// A mistake in `field` of `server`.
    pub(crate) fn in_field(
        kind: ConfigErrorKind,
        server: &str,
        field: &str,
        detail: impl Into<String>,
    ) -> Self {
        Self {
            kind,
            server: Some(server.to_owned()),
            field: Some(field.to_owned()),
            detail: detail.into(),
            source: None,
        }
    }

    /// A mistake in the entry of `server` as a whole.
    pub(crate) fn in_server(
        kind: ConfigErrorKind,
        server: &str,
        detail: impl Into<String>,
    ) -> Self {
        Self {
            kind,
            server: Some(server.to_owned()),
            field: None,
            detail: detail.into(),
            source: None,
        }
    }

    /// A mistake in the file as a whole.
    pub(crate) fn in_file(
        kind: ConfigErrorKind,
        detail: impl Into<String>,
        source: Option<Box<dyn std::error::Error + Send + Sync>>,
    ) -> Self {
        Self { kind, server: None, field: None, detail: detail.into(), source }
    }

    /// What kind of mistake this is.
    pub fn kind(&self) -> ConfigErrorKind {
        self.kind
    }

    /// The server whose entry is wrong, when the mistake is in one.
    pub fn server(&self) -> Option<&str> {
        self.server.as_deref()
    }

    /// The field that is wrong or missing, when the mistake is in one (for example `"args"`
    /// or `"headers.Authorization"`).
    pub fn field(&self) -> Option<&str> {
        self.field.as_deref()
    }
}

impl fmt::Display for ConfigError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("mcp.json: ")?;
        if let Some(server) = &self.server {
            write!(f, "server {server:?}: ")?;
        }
        if let Some(field) = &self.field {
            write!(f, "field {field:?}: ")?;
        }
        f.write_str(&self.detail)
    }
}

impl std::error::Error for ConfigError {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        self.source.as_deref().map(|e| e as &(dyn std::error::Error + 'static))
    }
}
