//! The manifest's shape, as it is read from TOML: every field keeps its span for errors.

pub(super) mod mcp;
pub(super) mod sandbox;

use std::collections::BTreeMap;

use serde::Deserialize;
use serde_json::Value;
use toml::Spanned;

use mcp::McpServerSpec;
use sandbox::SandboxSpec;

/// A whole manifest: a list of `[[tool]]` tables.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub(crate) struct ManifestSpec {
    /// The tools, in the order written.
    #[serde(default)]
    pub(crate) tool: Vec<ToolSpec>,
    /// MCP servers whose tools are imported, by name.
    #[serde(default)]
    pub(crate) mcp_servers: BTreeMap<String, Spanned<McpServerSpec>>,
    /// An `mcp.json` (`{"mcpServers": {...}}`) whose servers are imported too.
    pub(crate) mcp_config: Option<Spanned<String>>,
    /// With at least this many tools, every tool not set otherwise is deferred (100 unless
    /// given); 0 turns automatic deferral off.
    pub(crate) defer_threshold: Option<Spanned<u64>>,
    /// A Cedar policy file, or a folder of `.cedar` files, that decides every call.
    pub(crate) policy: Option<Spanned<String>>,
}

/// One `[[tool]]` table.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub(crate) struct ToolSpec {
    /// The tool's name, as models see it.
    pub(crate) name: Spanned<String>,
    /// What the tool does, for the model.
    pub(crate) description: Option<String>,
    /// A human-readable title (MCP's `title`).
    pub(crate) title: Option<String>,
    /// The JSON Schema of the arguments.
    pub(crate) parameters: Option<Spanned<Value>>,
    /// OpenAI's and Anthropic's strict mode.
    pub(crate) strict: Option<bool>,
    /// The tool does not change its environment.
    pub(crate) read_only: Option<bool>,
    /// The tool may destroy or overwrite things.
    pub(crate) destructive: Option<bool>,
    /// Calling the tool again with the same arguments has no further effect.
    pub(crate) idempotent: Option<bool>,
    /// The tool reaches an open world, such as the web.
    pub(crate) open_world: Option<bool>,
    /// A human approves every call first.
    #[serde(default)]
    pub(crate) needs_approval: bool,
    /// At most this many calls of the tool run at once.
    pub(crate) concurrency: Option<Spanned<u32>>,
    /// Whether `toolwire serve` may run a call as an MCP task: `"forbidden"` (the default),
    /// `"optional"` or `"required"`.
    pub(crate) task: Option<Spanned<String>>,
    /// `true` defers the tool (a model is shown it once a search finds it); `false` loads it
    /// always, past the manifest's `defer_threshold`.
    pub(crate) defer_loading: Option<bool>,
    /// A command tool.
    pub(crate) command: Option<Spanned<CommandSpec>>,
    /// An HTTP tool.
    pub(crate) http: Option<Spanned<HttpSpec>>,
}

/// `[tool.command]`: a program run with an argv template, never through a shell.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub(crate) struct CommandSpec {
    /// The program and its arguments; `{name}` is replaced by the argument `name`.
    pub(crate) argv: Spanned<Vec<Spanned<String>>>,
    /// The working directory, relative to the manifest's folder.
    pub(crate) cwd: Option<Spanned<String>>,
    /// The environment variables the command may see; every other one is removed.
    #[serde(default)]
    pub(crate) env: Vec<String>,
    /// How long the command may run before it is killed, such as `"5s"`.
    pub(crate) timeout: Option<Spanned<String>>,
    /// How many bytes the command may write to stdout.
    pub(crate) output_limit: Option<Spanned<u64>>,
    /// How stdout becomes the result: `"text"` (the default), `"json"`, or a MIME type such
    /// as `"image/png"`: stdout, or the `output_file`, is a content part of that type.
    pub(crate) output: Option<Spanned<String>>,
    /// The file, in the working folder, that a media `output` is read from; stdout is then
    /// the result's text.
    pub(crate) output_file: Option<Spanned<String>>,
    /// The placeholders in option position that may take a value starting with `-`: `true`
    /// for all of them, or a list of their names.
    pub(crate) allow_option_values: Option<Spanned<OptionValuesSpec>>,
    /// The sandbox: `"none"`, or a table; the default sandbox when absent.
    pub(crate) sandbox: Option<Spanned<SandboxSpec>>,
}

/// `allow_option_values`: `true`, `false`, or a list of placeholder names.
#[derive(Debug)]
pub(crate) enum OptionValuesSpec {
    /// Every placeholder (`true`), or none (`false`).
    All(bool),
    /// The placeholders named.
    Only(Vec<String>),
}

impl<'de> Deserialize<'de> for OptionValuesSpec {
    fn deserialize<D: serde::Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        deserializer.deserialize_any(OptionValuesVisitor)
    }
}

struct OptionValuesVisitor;

impl<'de> serde::de::Visitor<'de> for OptionValuesVisitor {
    type Value = OptionValuesSpec;

    fn expecting(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("true, false, or a list of placeholder names such as [\"file\"]")
    }

    fn visit_bool<E: serde::de::Error>(self, all: bool) -> Result<Self::Value, E> {
        Ok(OptionValuesSpec::All(all))
    }

    fn visit_seq<A: serde::de::SeqAccess<'de>>(self, mut seq: A) -> Result<Self::Value, A::Error> {
        let mut names = Vec::new();
        while let Some(name) = seq.next_element::<String>()? {
            names.push(name);
        }
        Ok(OptionValuesSpec::Only(names))
    }
}

/// `[tool.http]`: a request to a URL template.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub(crate) struct HttpSpec {
    /// The method, `GET` by default.
    pub(crate) method: Option<Spanned<String>>,
    /// The URL; `{name}` is replaced by the argument `name`, percent-encoded.
    pub(crate) url: Spanned<String>,
    /// Headers: a fixed text, or `{ env = "VAR", prefix = "Bearer " }`.
    #[serde(default)]
    pub(crate) headers: BTreeMap<String, HeaderSpec>,
    /// How long the request may take, such as `"10s"`.
    pub(crate) timeout: Option<Spanned<String>>,
    /// How many bytes the response body may have.
    pub(crate) output_limit: Option<Spanned<u64>>,
}

/// A header's value.
#[derive(Debug, Deserialize)]
#[serde(untagged)]
pub(crate) enum HeaderSpec {
    /// A fixed value.
    Fixed(String),
    /// A value read from the environment when the call is made.
    Env {
        /// The variable's name.
        env: String,
        /// Text put before the variable's value, such as `"Bearer "`.
        #[serde(default)]
        prefix: String,
    },
}
