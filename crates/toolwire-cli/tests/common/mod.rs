//! What the tests share: the binary, the example manifest, and manifests in fresh folders.

use std::path::{Path, PathBuf};
use std::sync::OnceLock;
use std::sync::atomic::{AtomicUsize, Ordering};

use assert_cmd::Command;

pub(crate) mod browser;
pub(crate) mod http;
pub(crate) mod inbox;
pub(crate) mod model;
pub(crate) mod oauth;
pub(crate) mod otlp;
pub(crate) mod stdio;

/// The `toolwire` binary, run in the crate's folder, with a data folder of its own.
pub(crate) fn toolwire() -> Command {
    let mut command = Command::cargo_bin("toolwire")
        .unwrap_or_else(|error| panic!("no toolwire binary: {error}"));
    command.env("XDG_DATA_HOME", scratch("data"));
    command
}

/// The binary's path, for tests that spawn it themselves.
pub(crate) fn binary() -> PathBuf {
    PathBuf::from(env!("CARGO_BIN_EXE_toolwire"))
}

/// The shipped example manifest.
pub(crate) fn example() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../../examples/tools.toml")
}

/// The folder that holds every scratch folder of this test process. It goes when the
/// process ends, also when a test fails or the process is killed: a watcher started with it
/// waits for the process to end, then removes it.
#[expect(clippy::zombie_processes, reason = "the watcher outlives this process on purpose")]
fn root() -> &'static Path {
    static ROOT: OnceLock<PathBuf> = OnceLock::new();
    ROOT.get_or_init(|| {
        let pid = std::process::id();
        let root = std::env::temp_dir().join(format!("toolwire-cli-test-{pid}"));
        std::fs::create_dir_all(&root)
            .unwrap_or_else(|error| panic!("cannot make {}: {error}", root.display()));
        let script = format!(
            "while kill -0 {pid} 2>/dev/null; do sleep 0.2; done; rm -rf '{}'",
            root.display()
        );
        let watcher = std::process::Command::new("sh")
            .args(["-c", &script])
            .stdin(std::process::Stdio::null())
            .stdout(std::process::Stdio::null())
            .stderr(std::process::Stdio::null())
            .spawn();
        watcher
            .unwrap_or_else(|error| panic!("cannot start the scratch folders' watcher: {error}"));
        root
    })
}

/// A fresh, empty folder for one test, removed with the test process's others.
pub(crate) fn scratch(label: &str) -> PathBuf {
    static NEXT: AtomicUsize = AtomicUsize::new(0);
    let n = NEXT.fetch_add(1, Ordering::Relaxed);
    let dir = root().join(format!("{label}-{n}"));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir)
        .unwrap_or_else(|error| panic!("cannot make {}: {error}", dir.display()));
    dir
}

/// Writes `text` as `tools.toml` in a fresh folder, and returns its path.
pub(crate) fn manifest(text: &str) -> PathBuf {
    let path = scratch("manifest").join("tools.toml");
    std::fs::write(&path, text)
        .unwrap_or_else(|error| panic!("cannot write {}: {error}", path.display()));
    path
}

/// The stderr of a run, as text.
pub(crate) fn stderr(output: &std::process::Output) -> String {
    String::from_utf8_lossy(&output.stderr).into_owned()
}

/// The stdout of a run, as text.
pub(crate) fn stdout(output: &std::process::Output) -> String {
    String::from_utf8_lossy(&output.stdout).into_owned()
}
