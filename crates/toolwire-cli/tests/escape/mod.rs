//! Escapes from a command tool's sandbox, tried as someone who controls the model's output
//! (and so a tool's arguments) but not the host: each attack is a manifest command tool
//! called with `toolwire call`, its working folder the manifest's (`cwd = "."`), and each is
//! judged from outside (a canary's content, mode or owner, a listener, a process that must be
//! gone), never by the tool's own word.
//!
//! Run as root, as CI runs, each attack is tried twice: with toolwire running as root, and as
//! an unprivileged user (`nobody`), whose files the canaries then are, so that only the
//! sandbox stands in the way.

mod checks;
mod devices;
mod files;
mod output;
mod processes;
mod sockets;

use std::os::unix::process::CommandExt;
use std::path::{Path, PathBuf};
use std::process::Output;

use serde_json::Value;

/// A tool that runs a shell script the model wrote.
pub(crate) const SH: &str = r#"
[[tool]]
name = "sh"
description = "Run a shell script"
parameters = { type = "object", properties = { script = { type = "string" } }, required = ["script"] }
[tool.command]
argv = ["sh", "-c", "{script}"]
allow_option_values = ["script"]
cwd = "."
timeout = "20s"
"#;

/// A tool that runs Python the model wrote.
pub(crate) const PY: &str = r#"
[[tool]]
name = "py"
description = "Run Python"
parameters = { type = "object", properties = { code = { type = "string" } }, required = ["code"] }
[tool.command]
argv = ["/usr/bin/python3", "-c", "{code}"]
allow_option_values = ["code"]
cwd = "."
timeout = "20s"
"#;

/// Who toolwire runs as.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Who {
    /// Root, as in containers and CI.
    Root,
    /// `nobody` when the tests run as root; the tests' own user otherwise.
    Unprivileged,
}

/// The uid and gid of `nobody`.
const NOBODY: u32 = 65534;

/// Every user to try an attack as: root and `nobody` when the tests run as root, else the
/// tests' own user.
pub(crate) fn everyone() -> Vec<Who> {
    if nix::unistd::geteuid().is_root() {
        vec![Who::Root, Who::Unprivileged]
    } else {
        vec![Who::Unprivileged]
    }
}

/// Whether toolwire runs as someone else than the tests.
fn switched(who: Who) -> bool {
    who == Who::Unprivileged && nix::unistd::geteuid().is_root()
}

/// A folder of its own, removed when it drops, that `who` owns.
pub(crate) fn folder(who: Who, label: &str) -> tempfile::TempDir {
    let folder = tempfile::Builder::new()
        .prefix(&format!("toolwire-escape-{label}-"))
        .tempdir()
        .unwrap_or_else(|error| panic!("cannot make a folder: {error}"));
    give(who, folder.path());
    folder
}

/// Makes `path` `who`'s.
pub(crate) fn give(who: Who, path: &Path) {
    if switched(who) {
        std::os::unix::fs::chown(path, Some(NOBODY), Some(NOBODY))
            .unwrap_or_else(|error| panic!("cannot give {} away: {error}", path.display()));
    }
}

/// Writes `text` to `path`, as `who`'s file.
pub(crate) fn write(who: Who, path: &Path, text: &str) {
    std::fs::write(path, text)
        .unwrap_or_else(|error| panic!("cannot write {}: {error}", path.display()));
    give(who, path);
}

/// One attack: a manifest in a folder of its own, which is the tools' working folder, and a
/// data folder for toolwire beside it.
pub(crate) struct Case {
    /// Who runs toolwire.
    pub(crate) who: Who,
    work: tempfile::TempDir,
    data: tempfile::TempDir,
}

/// What a call printed, and how it ended.
#[derive(Debug)]
pub(crate) struct Outcome {
    /// The exit code.
    pub(crate) code: Option<i32>,
    /// Stdout and stderr, together.
    pub(crate) text: String,
}

impl Case {
    /// The manifest `text` in a fresh folder of `who`'s.
    pub(crate) fn new(who: Who, text: &str) -> Self {
        let (work, data) = (folder(who, "work"), folder(who, "data"));
        write(who, &work.path().join("toolwire.toml"), text);
        Self { who, work, data }
    }

    /// The tools' working folder, which holds the manifest.
    pub(crate) fn path(&self) -> &Path {
        self.work.path()
    }

    /// Toolwire's data folder (`XDG_DATA_HOME`), where its default journal lives.
    pub(crate) fn data(&self) -> &Path {
        self.data.path()
    }

    /// The manifest.
    pub(crate) fn manifest(&self) -> PathBuf {
        self.path().join("toolwire.toml")
    }

    /// `toolwire`, as `who`, in the working folder.
    pub(crate) fn toolwire(&self) -> std::process::Command {
        let mut command = std::process::Command::new(crate::common::binary());
        self.prepare(&mut command);
        command
    }

    /// `toolwire ARGS` started by Python's `wrapper`, which sets something up (as a careless
    /// host would) and then `exec`s `sys.argv[1:]`: as `who`, in the working folder.
    pub(crate) fn wrapped(&self, wrapper: &str, args: &[&str]) -> Outcome {
        let mut command = std::process::Command::new("/usr/bin/python3");
        command.arg("-c").arg(wrapper).arg(crate::common::binary()).args(args);
        self.prepare(&mut command);
        outcome(command.output())
    }

    fn prepare(&self, command: &mut std::process::Command) {
        command.current_dir(self.path()).env("XDG_DATA_HOME", self.data()).env("HOME", self.data());
        run_as(self.who, command);
    }

    /// `toolwire call TOOL --args ARGS`.
    pub(crate) fn call(&self, tool: &str, args: Value) -> Outcome {
        let mut command = self.toolwire();
        command.args(["call", tool, "--yes", "--args", &args.to_string()]);
        outcome(command.output())
    }

    /// The shell tool with `script`.
    pub(crate) fn sh(&self, script: &str) -> Outcome {
        self.call("sh", serde_json::json!({ "script": script }))
    }

    /// The Python tool with `code`.
    pub(crate) fn py(&self, code: &str) -> Outcome {
        self.call("py", serde_json::json!({ "code": code }))
    }
}

/// Makes `command` run as `who`.
pub(crate) fn run_as(who: Who, command: &mut std::process::Command) {
    if switched(who) {
        command.uid(NOBODY).gid(NOBODY);
    }
}

/// An outcome of `output`.
pub(crate) fn outcome(output: std::io::Result<Output>) -> Outcome {
    let output = output.unwrap_or_else(|error| panic!("toolwire does not start: {error}"));
    let mut text = String::from_utf8_lossy(&output.stdout).into_owned();
    text.push_str(&String::from_utf8_lossy(&output.stderr));
    Outcome { code: output.status.code(), text }
}

/// The live processes whose command line contains `marker`, as the host sees them.
pub(crate) fn alive(marker: &str) -> Vec<u32> {
    let Ok(entries) = std::fs::read_dir("/proc") else { return Vec::new() };
    entries
        .filter_map(|entry| entry.ok()?.file_name().to_str()?.parse::<u32>().ok())
        .filter(|pid| {
            let cmdline = std::fs::read(format!("/proc/{pid}/cmdline")).unwrap_or_default();
            let status = std::fs::read_to_string(format!("/proc/{pid}/status")).unwrap_or_default();
            String::from_utf8_lossy(&cmdline).replace('\0', " ").contains(marker)
                && !status.contains("State:\tZ")
        })
        .collect()
}

/// A text no other test uses, to mark this one's processes and files.
pub(crate) fn unique(label: &str) -> String {
    use std::sync::atomic::{AtomicU32, Ordering};
    static NEXT: AtomicU32 = AtomicU32::new(0);
    format!("{label}-{}-{}", std::process::id(), NEXT.fetch_add(1, Ordering::Relaxed))
}
