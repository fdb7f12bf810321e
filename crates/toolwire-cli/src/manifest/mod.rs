//! The manifest: tools declared in TOML, without Rust.
//!
//! ```toml
//! [[tool]]
//! name = "echo"
//! description = "Print a message back"
//! read_only = true
//! parameters = { type = "object", properties = { message = { type = "string" } }, required = ["message"] }
//! [tool.command]
//! argv = ["echo", "{message}"]
//! ```
//!
//! Reading one checks everything that can be checked without running anything, and every
//! error names the file, the line and the column.

mod checker;
mod diagnostic;
mod guard;
mod mcp;
mod sandbox;
mod spec;
mod validate;

use std::ops::Range;
use std::path::Path;
use std::time::Duration;

use serde_json::Value;
use toml::Spanned;

pub(crate) use diagnostic::ManifestError;
pub(crate) use guard::Guarded;
pub(crate) use mcp::{Questions, ServerDef};
pub(crate) use spec::HeaderSpec;
pub(crate) use toolwire_process::CommandSpec as CommandDef;
use toolwire_process::Template;

/// A manifest that was read and checked.
#[derive(Debug)]
pub(crate) struct Manifest {
    /// The tools, in the order written.
    pub(crate) tools: Vec<ToolDef>,
    /// The MCP servers whose tools are imported, by name.
    pub(crate) servers: Vec<ServerDef>,
    /// The `mcp.json` whose servers are imported too, if any.
    pub(crate) mcp_config: Option<std::path::PathBuf>,
    /// The number of tools from which every tool not set otherwise is deferred; `None` when
    /// the manifest turned it off.
    pub(crate) defer_threshold: Option<usize>,
    /// The Cedar policy file or folder that decides every call, if any.
    pub(crate) policy: Option<std::path::PathBuf>,
    /// The file's path, as shown in errors.
    path: String,
    /// The file's text, for errors found after reading.
    source: String,
}

/// A tool of the manifest.
#[derive(Debug)]
pub(crate) struct ToolDef {
    /// Its name.
    pub(crate) name: String,
    /// What it does, for the model.
    pub(crate) description: Option<String>,
    /// A human-readable title.
    pub(crate) title: Option<String>,
    /// The JSON Schema of its arguments.
    pub(crate) parameters: Option<Value>,
    /// Strict mode for OpenAI and Anthropic.
    pub(crate) strict: Option<bool>,
    /// The MCP hints: read-only, destructive, idempotent, open world.
    pub(crate) hints: [Option<bool>; 4],
    /// A human approves every call first.
    pub(crate) needs_approval: bool,
    /// At most this many calls at once.
    pub(crate) concurrency: Option<usize>,
    /// Whether a call may run as an MCP task.
    pub(crate) task_support: toolwire::TaskSupport,
    /// Deferred (`true`) or loaded always (`false`); as the threshold says when absent.
    pub(crate) defer_loading: Option<bool>,
    /// What runs.
    pub(crate) kind: ToolKind,
    /// Where the name is written, for errors.
    pub(crate) name_span: Range<usize>,
    /// Where the parameters are written, for errors.
    pub(crate) parameters_span: Option<Range<usize>>,
}

/// What a manifest tool runs.
#[derive(Debug)]
pub(crate) enum ToolKind {
    /// A program, with an argv template.
    Command(Box<CommandDef>),
    /// An HTTP request.
    Http(HttpDef),
}

/// An HTTP tool's settings.
#[derive(Debug)]
pub(crate) struct HttpDef {
    /// The method.
    pub(crate) method: reqwest::Method,
    /// The URL template.
    pub(crate) url: Template,
    /// The headers, by name.
    pub(crate) headers: Vec<(String, HeaderSpec)>,
    /// How long the request may take.
    pub(crate) timeout: Duration,
    /// How many bytes the response body may have.
    pub(crate) output_limit: u64,
}

/// How long a tool may run when the manifest does not say.
pub(crate) const DEFAULT_TIMEOUT: Duration = toolwire_process::DEFAULT_TIMEOUT;

/// How many bytes a tool may write when the manifest does not say.
pub(crate) const DEFAULT_OUTPUT_LIMIT: u64 = toolwire_process::DEFAULT_OUTPUT_LIMIT;

impl Manifest {
    /// Reads and checks the manifest at `path`.
    pub(crate) fn load(path: &Path) -> Result<Self, ManifestError> {
        let shown = path.display().to_string();
        let source = std::fs::read_to_string(path).map_err(|error| {
            ManifestError::whole(format!("cannot read manifest {shown}: {error}"))
        })?;
        // Absolute, so that the tools' folders mean the same wherever a launcher runs.
        let folder = path.parent().unwrap_or(Path::new("."));
        let folder = std::env::current_dir()
            .map(|here| here.join(folder))
            .unwrap_or_else(|_| folder.to_owned());
        Self::parse(&shown, &source, &folder)
    }

    /// Checks the manifest `source`, read from `path`, whose folder is `folder`.
    pub(crate) fn parse(path: &str, source: &str, folder: &Path) -> Result<Self, ManifestError> {
        let spec: spec::ManifestSpec = toml::from_str(source).map_err(|error| {
            let span = error.span().unwrap_or(0..0);
            ManifestError::at(path, source, span, error.message().trim_end())
        })?;
        let checker = checker::Checker { path, source, folder };
        let tools = checker.tools(spec.tool)?;
        let mcp_config = spec.mcp_config.as_ref().map(|config| folder.join(config.get_ref()));
        let servers = checker.servers(spec.mcp_servers, spec.mcp_config)?;
        let defer_threshold = match spec.defer_threshold.map(Spanned::into_inner) {
            None => Some(toolwire::registry::DEFAULT_DEFER_THRESHOLD),
            Some(0) => None,
            Some(threshold) => Some(usize::try_from(threshold).unwrap_or(usize::MAX)),
        };
        let policy = spec.policy.as_ref().map(|policy| folder.join(policy.get_ref()));
        let path = path.to_owned();
        let source = source.to_owned();
        Ok(Self { tools, servers, mcp_config, defer_threshold, policy, path, source })
    }

    /// An error at `span` of this manifest.
    pub(crate) fn error_at(&self, span: Range<usize>, message: impl Into<String>) -> ManifestError {
        ManifestError::at(&self.path, &self.source, span, message)
    }
}
