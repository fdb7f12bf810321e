//! The manifest's shape, as it is read from TOML: every field keeps its span for errors.

use std::collections::BTreeMap;

use serde::Deserialize;
use serde_json::Value;
use toml::Spanned;

/// A whole manifest: a list of `[[tool]]` tables.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub(crate) struct ManifestSpec {
    /// The tools, in the order written.
    #[serde(default)]
    pub(crate) tool: Vec<ToolSpec>,
    /// MCP servers whose tools are imported, by name.
    #[serde(default)]
    pub(crate) mcp_servers: BTreeMap<String, Spanned<super::mcp::McpServerSpec>>,
    /// An `mcp.json` (`{"mcpServers": {...}}`) whose servers are imported too.
    pub(crate) mcp_config: Option<Spanned<String>>,
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
    /// How stdout becomes the result: `"text"` (the default) or `"json"`.
    pub(crate) output: Option<Spanned<String>>,
    /// The placeholders in option position that may take a value starting with `-`: `true`
    /// for all of them, or a list of their names.
    pub(crate) allow_option_values: Option<Spanned<OptionValuesSpec>>,
    /// The sandbox: `"none"`, or a table; the default sandbox when absent.
    pub(crate) sandbox: Option<Spanned<SandboxSpec>>,
}

/// `sandbox`: the word `"none"`, or a `[tool.command.sandbox]` table.
///
/// Read by hand rather than as an untagged enum, which buffers its input: the spans of the
/// table's fields would be lost, and any error in the table would read "data did not match
/// any variant", naming no key.
#[derive(Debug)]
pub(crate) enum SandboxSpec {
    /// `"none"` (any other word is an error).
    Word(String),
    /// The rules.
    Table(Box<SandboxTable>),
}

impl<'de> Deserialize<'de> for SandboxSpec {
    fn deserialize<D: serde::Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        deserializer.deserialize_any(SandboxVisitor)
    }
}

struct SandboxVisitor;

impl<'de> serde::de::Visitor<'de> for SandboxVisitor {
    type Value = SandboxSpec;

    fn expecting(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("\"none\", or a table of sandbox settings such as { write = [\"out\"] }")
    }

    fn visit_str<E: serde::de::Error>(self, word: &str) -> Result<Self::Value, E> {
        Ok(SandboxSpec::Word(word.to_owned()))
    }

    fn visit_map<A: serde::de::MapAccess<'de>>(self, map: A) -> Result<Self::Value, A::Error> {
        let table = SandboxTable::deserialize(serde::de::value::MapAccessDeserializer::new(map))?;
        Ok(SandboxSpec::Table(Box::new(table)))
    }
}

/// `[tool.command.sandbox]`: every field falls back to the default sandbox's.
#[derive(Debug, Default, Deserialize)]
#[serde(deny_unknown_fields)]
pub(crate) struct SandboxTable {
    /// Readable paths, relative to the manifest's folder (default: `["/"]`).
    pub(crate) read: Option<Vec<String>>,
    /// Writable paths, relative to the manifest's folder, besides the working folder and the
    /// temporary folder.
    #[serde(default)]
    pub(crate) write: Vec<String>,
    /// Whether the working folder is writable (default: true).
    pub(crate) write_working_folder: Option<bool>,
    /// Whether the call gets a private temporary folder (default: true).
    pub(crate) temp_folder: Option<bool>,
    /// `"off"` (the default) or `"on"`.
    pub(crate) network: Option<Spanned<String>>,
    /// TCP ports the tool may connect to (the network being otherwise off).
    pub(crate) ports: Option<Vec<u16>>,
    /// At most this many processes.
    pub(crate) processes: Option<u64>,
    /// The address space of a process, in bytes or as `"512 MiB"`.
    pub(crate) address_space: Option<Spanned<Size>>,
    /// CPU seconds per process.
    pub(crate) cpu_seconds: Option<u64>,
    /// The largest file, in bytes or as `"1 GiB"`.
    pub(crate) file_size: Option<Spanned<Size>>,
    /// How many files a process may have open.
    pub(crate) open_files: Option<u64>,
    /// Run as this user (toolwire must run as root): `{ uid = 65534, gid = 65534 }`.
    pub(crate) user: Option<UserSpec>,
    /// The layers this tool may run without where the kernel lacks them, such as
    /// `["namespaces"]`.
    #[serde(default)]
    pub(crate) accept_missing: Vec<Spanned<String>>,
}

/// A size: bytes, or a text such as `"512 MiB"`.
#[derive(Debug, Deserialize)]
#[serde(untagged)]
pub(crate) enum Size {
    /// Bytes.
    Bytes(u64),
    /// A number with a unit: B, KiB, MiB, GiB.
    Text(String),
}

/// `user = { uid = .., gid = .. }`.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub(crate) struct UserSpec {
    /// The user id.
    pub(crate) uid: u32,
    /// The group id.
    pub(crate) gid: u32,
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
