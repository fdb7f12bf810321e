//! The official MCP Python SDK (PyPI `mcp`, pinned in `interop/python/requirements.txt`), in
//! a virtual environment of the target folder: what toolwire-mcp's and toolwire-cli's tests
//! that drive a real Python client or server share.

use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::Once;

/// The repository's `interop/python` folder.
pub fn client_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../../interop/python")
}

/// The Python of a virtual environment in the target folder, with the pinned SDK installed.
pub fn python() -> PathBuf {
    static INSTALL: Once = Once::new();
    let exe = std::env::current_exe().expect("the test knows its path");
    // target/<profile>/deps/<test>
    let target = exe
        .parent()
        .and_then(Path::parent)
        .and_then(Path::parent)
        .expect("the test runs from target/<profile>/deps");
    let venv = target.join("python-mcp-venv");
    let python = venv.join(if cfg!(windows) { "Scripts/python.exe" } else { "bin/python" });
    INSTALL.call_once(|| {
        if !python.exists() {
            let status = Command::new("python3")
                .args(["-m", "venv"])
                .arg(&venv)
                .status()
                .expect("python3 runs (install Python 3 with venv and pip)");
            assert!(status.success(), "python3 -m venv {} failed", venv.display());
        }
        let has_sdk = Command::new(&python)
            .args(["-c", "import mcp"])
            .output()
            .expect("the virtual environment's python runs")
            .status
            .success();
        if !has_sdk {
            let requirements = client_dir().join("requirements.txt");
            let status = Command::new(&python)
                .args(["-m", "pip", "install", "--quiet", "--disable-pip-version-check", "-r"])
                .arg(&requirements)
                .status()
                .expect("pip runs in the virtual environment");
            assert!(
                status.success(),
                "pip install -r {} into {} failed (it needs access to PyPI)",
                requirements.display(),
                venv.display()
            );
        }
    });
    python
}
