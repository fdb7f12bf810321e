//! A command tool's `sandbox`, as written: the word `"none"`, or a table of settings.

use serde::Deserialize;
use toml::Spanned;

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
