//! What every sandbox of a manifest keeps from the programs it runs, whatever each tool's
//! table says: toolwire's own files read-only (the manifest, its lock file, its `mcp.json`,
//! its Cedar policy),
//! toolwire's state out of reach (the journal, which holds earlier results and the key that
//! mints approvals, its data folder, and the folder of MCP logins, which holds OAuth tokens),
//! and no symlink followed where another of the
//! manifest's sandboxes may write.

use std::path::{Path, PathBuf};

use toolwire_mcp::client::ServerSpec;
use toolwire_process::sandbox::{Policy, Sandbox};

use super::{Manifest, ToolKind};

/// The files a sandbox must not change, and those it must not read.
#[derive(Debug, Default)]
pub(crate) struct Guarded {
    /// Read-only: toolwire's configuration.
    pub(crate) protected: Vec<PathBuf>,
    /// Out of reach: toolwire's state.
    pub(crate) hidden: Vec<PathBuf>,
}

impl Guarded {
    /// What to guard for the manifest at `manifest` and the journal at `journal` (the
    /// default one when `None`; a PostgreSQL URL is no file).
    pub(crate) fn of(manifest: &Manifest, path: &Path, journal: Option<&Path>) -> Self {
        let mut guarded = Self::paths(path, manifest.mcp_config.as_deref(), journal);
        // A tool that could rewrite the policy would choose its own next verdict.
        guarded.protected.extend(manifest.policy.clone());
        guarded
    }

    fn paths(manifest: &Path, mcp_config: Option<&Path>, journal: Option<&Path>) -> Self {
        let here = std::env::current_dir().unwrap_or_default();
        let (manifest, journal) = (here.join(manifest), journal.map(|journal| here.join(journal)));
        let mut guarded = Self::default();
        guarded.protected.push(manifest.to_owned());
        guarded.protected.push(manifest.with_file_name(crate::remote::LOCK_FILE));
        guarded.protected.extend(mcp_config.map(Path::to_owned));
        match &journal {
            Some(journal) if !journal.to_string_lossy().contains("://") => {
                // SQLite's own files beside it: the write-ahead log, its index, the journal.
                for suffix in ["", "-wal", "-shm", "-journal"] {
                    let mut name = journal.as_os_str().to_owned();
                    name.push(suffix);
                    guarded.hidden.push(PathBuf::from(name));
                }
            }
            Some(_) => {}
            None => {}
        }
        guarded.hidden.extend(crate::journal::data_folder());
        // The MCP servers' logins: their tokens would let a tool act as the user elsewhere.
        guarded.hidden.extend(toolwire_mcp::client::oauth::TokenStore::default_dir());
        guarded
    }
}

impl Manifest {
    /// Applies `guarded` to every sandbox of the manifest, and makes each distrust symlinks
    /// where any other may write.
    pub(crate) fn guard(&mut self, guarded: &Guarded) {
        let writable = self.writable();
        for policy in self.policies() {
            policy.protected.extend(guarded.protected.iter().cloned());
            policy.hidden.extend(guarded.hidden.iter().cloned());
            policy.shared_writable.extend(writable.iter().cloned());
        }
    }

    /// The folders some sandbox of the manifest may write: working folders and write paths.
    fn writable(&mut self) -> Vec<PathBuf> {
        let mut folders = Vec::new();
        for tool in &self.tools {
            if let ToolKind::Command(command) = &tool.kind
                && let Sandbox::Policy(policy) = &command.sandbox
            {
                folders.extend(writable(policy, command.cwd.as_deref()));
            }
        }
        for server in &self.servers {
            if let (ServerSpec::Stdio(stdio), Sandbox::Policy(policy)) =
                (&server.spec, &server.sandbox)
            {
                folders.extend(writable(policy, stdio.cwd.as_deref()));
            }
        }
        folders
    }

    /// Every sandbox policy of the manifest: its command tools' and its servers'.
    fn policies(&mut self) -> impl Iterator<Item = &mut Policy> {
        let tools = self.tools.iter_mut().filter_map(|tool| match &mut tool.kind {
            ToolKind::Command(command) => match &mut command.sandbox {
                Sandbox::Policy(policy) => Some(policy),
                Sandbox::None => None,
            },
            ToolKind::Http(_) => None,
        });
        let servers = self.servers.iter_mut().filter_map(|server| match &mut server.sandbox {
            Sandbox::Policy(policy) => Some(policy),
            Sandbox::None => None,
        });
        tools.chain(servers)
    }
}

/// What `policy` lets a program write, with `cwd` its working folder (toolwire's own when
/// `None`).
fn writable(policy: &Policy, cwd: Option<&Path>) -> Vec<PathBuf> {
    let mut folders = policy.write.clone();
    if policy.write_working_folder {
        match cwd {
            Some(cwd) => folders.push(cwd.to_owned()),
            None => folders.extend(std::env::current_dir().ok()),
        }
    }
    folders
}
