//! Why a sandbox could not be set up or enforced.

use std::fmt;

/// A sandbox that cannot be enforced or prepared. The call fails; the program never runs.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SandboxError {
    kind: SandboxErrorKind,
    message: String,
}

/// What kind of [`SandboxError`] it is.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[non_exhaustive]
pub enum SandboxErrorKind {
    /// The kernel or the OS lacks a feature the sandbox needs.
    Unsupported,
    /// The sandbox's setup failed: a path that does not exist, a folder that cannot be made.
    Setup,
}

impl SandboxError {
    /// The kernel or OS cannot enforce `feature`.
    pub(crate) fn unsupported(feature: impl fmt::Display) -> Self {
        let message = format!(
            "the sandbox cannot be enforced here: {feature}; nothing ran. Set sandbox = \"none\" \
             (Sandbox::None) to run this tool without a sandbox"
        );
        Self { kind: SandboxErrorKind::Unsupported, message }
    }

    /// The setup failed, for the reason `why`.
    pub(crate) fn setup(why: impl fmt::Display) -> Self {
        Self { kind: SandboxErrorKind::Setup, message: format!("cannot set up the sandbox: {why}") }
    }

    /// What kind of error it is.
    pub fn kind(&self) -> SandboxErrorKind {
        self.kind
    }

    /// Whether the kernel or OS lacks a feature.
    pub fn is_unsupported(&self) -> bool {
        self.kind == SandboxErrorKind::Unsupported
    }
}

impl fmt::Display for SandboxError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.message)
    }
}

impl std::error::Error for SandboxError {}
