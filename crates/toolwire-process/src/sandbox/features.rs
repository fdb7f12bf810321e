//! The optional Landlock rights a plan applies: those this kernel has, and that a policy
//! requires unless it accepts running without them.

use serde::{Deserialize, Serialize};

use super::{Backend, Layer, Policy, SandboxError};

/// The optional Landlock rights a plan applies: those this kernel has.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
pub(crate) struct Features {
    /// The device ioctl right (ABI 5).
    pub(crate) device_ioctl: bool,
    /// The signal and abstract Unix socket scopes (ABI 6).
    pub(crate) scopes: bool,
}

impl Features {
    /// The rights this kernel has for `policy`: Landlock's file rules (and TCP rules, unless
    /// the network is on) are required; the device ioctl right and the scopes are required
    /// unless the policy accepts their absence.
    ///
    /// # Errors
    ///
    /// Unsupported, naming the missing feature and the opt-out.
    pub(crate) fn probe(policy: &Policy) -> Result<Self, SandboxError> {
        let Some(backend) = Backend::native() else {
            return Err(SandboxError::unsupported(
                "toolwire has no sandbox backend for this OS yet (Landlock is Linux only)",
            ));
        };
        match backend {
            #[cfg(target_os = "linux")]
            Backend::Landlock => {
                super::landlock::probe(&policy.network)?;
                let device_ioctl =
                    optional(policy, Layer::DeviceIoctl, super::landlock::has_device_ioctl())?;
                let scopes = optional(policy, Layer::Scopes, super::landlock::has_scopes())?;
                Ok(Self { device_ioctl, scopes })
            }
            #[cfg(not(target_os = "linux"))]
            _ => Ok(Self::default()),
        }
    }
}

/// Whether a layer the kernel may lack is applied: `true` when it `present`; `false` when it
/// is missing and `policy` accepts that.
///
/// # Errors
///
/// Unsupported when it is missing and not accepted.
fn optional(
    policy: &Policy,
    layer: Layer,
    present: Result<(), String>,
) -> Result<bool, SandboxError> {
    match present {
        Ok(()) => Ok(true),
        Err(_) if policy.accept_missing.contains(&layer) => Ok(false),
        Err(why) => Err(SandboxError::missing_layer(layer, why)),
    }
}
