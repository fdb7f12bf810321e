//! The private temporary folder of a call (`$TMPDIR`), and the sweep of those left behind by
//! processes that were killed before they could remove them.

use std::path::Path;

use tempfile::TempDir;

use super::{SandboxError, User};

/// The start of a call's temporary folder's name; the parent's pid follows, then a dash.
const TEMP_PREFIX: &str = "toolwire-call-";

/// Removes the temporary folders that calls of processes no longer running left in `dir`:
/// a parent killed with SIGKILL runs no destructor. Only folders of this user, named for a
/// pid that is gone, are removed; a symlink is never followed. Errors are ignored: what
/// cannot be removed now is tried again by the next process.
fn sweep(dir: &Path) {
    let Ok(entries) = std::fs::read_dir(dir) else { return };
    let me = nix::unistd::geteuid().as_raw();
    for entry in entries.flatten() {
        let name = entry.file_name();
        let Some(pid) = name.to_str().and_then(leftover_pid) else { continue };
        let Ok(meta) = entry.path().symlink_metadata() else { continue };
        let ours = std::os::unix::fs::MetadataExt::uid(&meta) == me;
        let gone = !Path::new("/proc").join(pid.to_string()).exists();
        if meta.is_dir() && ours && gone && pid != std::process::id() {
            let _ = std::fs::remove_dir_all(entry.path());
        }
    }
}

/// The parent's pid in a temporary folder's name, `toolwire-call-<pid>-<random>`.
fn leftover_pid(name: &str) -> Option<u32> {
    let (pid, rest) = name.strip_prefix(TEMP_PREFIX)?.split_once('-')?;
    if rest.is_empty() || !pid.bytes().all(|b| b.is_ascii_digit()) {
        return None;
    }
    pid.parse().ok()
}

/// A new private folder under the system's temporary folder, owned by `user` when given.
pub(crate) fn folder(user: Option<User>) -> Result<TempDir, SandboxError> {
    static SWEPT: std::sync::Once = std::sync::Once::new();
    SWEPT.call_once(|| sweep(&std::env::temp_dir()));
    let temp = tempfile::Builder::new()
        .prefix(&format!("{TEMP_PREFIX}{}-", std::process::id()))
        .tempdir()
        .map_err(|error| SandboxError::setup(format!("cannot make a temporary folder: {error}")))?;
    if let Some(user) = user {
        std::os::unix::fs::chown(temp.path(), Some(user.uid), Some(user.gid)).map_err(|error| {
            SandboxError::setup(format!(
                "cannot give {} to uid {}: {error}",
                temp.path().display(),
                user.uid
            ))
        })?;
    }
    Ok(temp)
}

#[cfg(test)]
mod tests {
    use super::leftover_pid;

    #[test]
    fn only_names_of_call_folders_give_a_pid() {
        assert_eq!(leftover_pid("toolwire-call-1234-AbC9"), Some(1234));
        assert_eq!(leftover_pid("toolwire-call-1234-"), None);
        assert_eq!(leftover_pid("toolwire-call-x12-abc"), None);
        assert_eq!(leftover_pid("toolwire-call-abc"), None);
        assert_eq!(leftover_pid("other-1234-abc"), None);
    }
}
