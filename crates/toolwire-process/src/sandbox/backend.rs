//! The kernel feature that enforces a sandbox on this OS.

/// What enforces the sandbox: one per OS that has one.
///
/// Linux has Landlock (files and TCP), `no_new_privs` and resource limits. macOS's Seatbelt
/// would be another variant; until then a sandboxed tool fails closed there.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[non_exhaustive]
pub enum Backend {
    /// Linux: Landlock (ABI 4 or later), `no_new_privs`, rlimits, a pids cgroup under root.
    Landlock,
}

impl Backend {
    /// The backend of the OS this was built for; `None` where toolwire has none yet.
    pub fn native() -> Option<Backend> {
        if cfg!(target_os = "linux") { Some(Backend::Landlock) } else { None }
    }

    /// Its name, as messages show it.
    pub fn as_str(self) -> &'static str {
        match self {
            Backend::Landlock => "landlock",
        }
    }
}
