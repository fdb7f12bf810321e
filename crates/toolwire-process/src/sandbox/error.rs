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

    /// The kernel lacks `layer`, for the reason `why`, and the policy does not accept that.
    pub(crate) fn missing_layer(layer: super::Layer, why: impl fmt::Display) -> Self {
        let message = format!(
            "the sandbox cannot be enforced here: this kernel lacks {} ({why}); nothing ran. \
             Set accept_missing = [\"{layer}\"] (Policy::accept_missing) to run this tool \
             without that layer, or sandbox = \"none\" (Sandbox::None) to run it without any \
             sandbox",
            layer.describe()
        );
        Self { kind: SandboxErrorKind::Unsupported, message }
    }

    /// What the launcher said when it could not apply the sandbox.
    pub(crate) fn launcher(why: impl fmt::Display) -> Self {
        Self {
            kind: SandboxErrorKind::Setup,
            message: format!("the sandbox could not be applied: {why}"),
        }
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
