//! `toolwire.lock`: the MCP tools a manifest trusts, each pinned by the SHA-256 of its
//! definition, beside the manifest. Plain TOML, sorted, for a reviewer to diff.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};
use toolwire_mcp::client::Pin;

/// The lock file's name, in the manifest's folder.
pub(crate) const LOCK_FILE: &str = "toolwire.lock";

const HEADER: &str = "\
# toolwire.lock: the MCP tools this manifest trusts, each pinned by the SHA-256 of its
# definition (and a short hash of each part, to name what changed). Written by
# `toolwire mcp accept`; review its changes as you review code.
";

/// One pinned tool.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub(crate) struct Locked {
    /// The server's name in the manifest.
    pub(crate) server: String,
    /// The tool's name on the server.
    pub(crate) tool: String,
    /// The hex SHA-256 of its definition.
    pub(crate) digest: String,
    /// Each part of the definition, and a short hash of it.
    pub(crate) parts: BTreeMap<String, String>,
}

impl Locked {
    /// The entry that pins `pin` of `server`.
    pub(crate) fn of(server: &str, pin: &Pin) -> Self {
        let parts = pin.parts.iter().map(|(part, hash)| ((*part).to_owned(), hash.clone()));
        Self {
            server: server.to_owned(),
            tool: pin.tool.clone(),
            digest: pin.digest.clone(),
            parts: parts.collect(),
        }
    }

    /// The parts of `pin` that differ from this entry.
    pub(crate) fn changes(&self, pin: &Pin) -> Vec<&'static str> {
        let differs = |part: &&(&'static str, String)| self.parts.get(part.0) != Some(&part.1);
        pin.parts.iter().filter(differs).map(|(part, _)| *part).collect()
    }
}

/// The file's shape.
#[derive(Debug, Default, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
struct LockSpec {
    version: u32,
    #[serde(default)]
    tool: Vec<Locked>,
}

/// The lock file of a manifest.
#[derive(Debug)]
pub(crate) struct LockFile {
    path: PathBuf,
    /// By server, then tool.
    entries: BTreeMap<(String, String), Locked>,
}

impl LockFile {
    /// The lock file beside `manifest`; empty when it does not exist yet.
    ///
    /// # Errors
    ///
    /// When it exists but cannot be read or is not a lock file.
    pub(crate) fn beside(manifest: &Path) -> Result<Self, String> {
        let path = manifest.with_file_name(LOCK_FILE);
        let text = match std::fs::read_to_string(&path) {
            Ok(text) => text,
            Err(error) if error.kind() == std::io::ErrorKind::NotFound => String::new(),
            Err(error) => return Err(format!("cannot read {}: {error}", path.display())),
        };
        let spec: LockSpec = if text.trim().is_empty() {
            LockSpec { version: 1, tool: Vec::new() }
        } else {
            toml::from_str(&text).map_err(|error| {
                format!("{} is not a toolwire lock file: {}", path.display(), error.message())
            })?
        };
        if spec.version != 1 {
            return Err(format!("{}: unknown lock file version {}", path.display(), spec.version));
        }
        let entries =
            spec.tool.into_iter().map(|e| ((e.server.clone(), e.tool.clone()), e)).collect();
        Ok(Self { path, entries })
    }

    /// The entry of `tool` of `server`, if it is pinned.
    pub(crate) fn get(&self, server: &str, tool: &str) -> Option<&Locked> {
        self.entries.get(&(server.to_owned(), tool.to_owned()))
    }

    /// The pinned tools of `server`.
    pub(crate) fn of_server<'a>(&'a self, server: &'a str) -> impl Iterator<Item = &'a Locked> {
        self.entries.values().filter(move |entry| entry.server == server)
    }

    /// Pins `entry`, replacing the one it had; returns whether anything changed.
    pub(crate) fn put(&mut self, entry: Locked) -> bool {
        let key = (entry.server.clone(), entry.tool.clone());
        self.entries.insert(key, entry.clone()).as_ref() != Some(&entry)
    }

    /// Unpins `tool` of `server`; returns whether it was pinned.
    pub(crate) fn remove(&mut self, server: &str, tool: &str) -> bool {
        self.entries.remove(&(server.to_owned(), tool.to_owned())).is_some()
    }

    /// Writes the file (atomically: a temporary file renamed over it).
    ///
    /// # Errors
    ///
    /// When it cannot be written.
    pub(crate) fn save(&self) -> Result<(), String> {
        let spec = LockSpec { version: 1, tool: self.entries.values().cloned().collect() };
        let body = toml::to_string(&spec).map_err(|error| error.to_string())?;
        let temporary = self.path.with_extension("lock.tmp");
        let written = std::fs::write(&temporary, format!("{HEADER}\n{body}"))
            .and_then(|()| std::fs::rename(&temporary, &self.path));
        written.map_err(|error| format!("cannot write {}: {error}", self.path.display()))
    }

    /// Where it is.
    pub(crate) fn path(&self) -> &Path {
        &self.path
    }
}
