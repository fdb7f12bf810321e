//! Finding a command tool's program before it runs, so a missing one is a clear error.

use std::path::{Path, PathBuf};

/// The program `program` names: a path (relative to `cwd` when relative), or a file found on
/// the `PATH` of this process.
///
/// # Errors
///
/// A message saying what was looked for, and where.
pub fn program(program: &str, cwd: Option<&Path>) -> Result<PathBuf, String> {
    if program.contains('/') {
        let path = match cwd {
            Some(cwd) => cwd.join(program),
            None => PathBuf::from(program),
        };
        return if is_executable(&path) {
            Ok(path)
        } else {
            Err(format!(
                "program {:?} was not found or is not executable",
                path.display().to_string()
            ))
        };
    }
    let path = std::env::var_os("PATH").unwrap_or_default();
    std::env::split_paths(&path)
        .map(|folder| folder.join(program))
        .find(|candidate| is_executable(candidate))
        .ok_or_else(|| format!("program {program:?} was not found on PATH"))
}

fn is_executable(path: &Path) -> bool {
    use std::os::unix::fs::PermissionsExt;
    std::fs::metadata(path)
        .is_ok_and(|meta| meta.is_file() && meta.permissions().mode() & 0o111 != 0)
}
