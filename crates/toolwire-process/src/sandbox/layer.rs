//! The layers of a sandbox that some kernels lack, named so that a policy can accept running
//! without one.

use std::fmt;
use std::str::FromStr;

use serde::{Deserialize, Serialize};

/// A layer of the sandbox that a kernel may lack. A call fails closed where one is missing,
/// unless its policy names the layer in [`accept_missing`](super::Policy::accept_missing).
///
/// ```
/// use toolwire_process::sandbox::Layer;
///
/// let layer: Layer = "namespaces".parse().unwrap();
/// assert_eq!(layer, Layer::Namespaces);
/// assert_eq!(layer.to_string(), "namespaces");
/// assert!("firewall".parse::<Layer>().is_err());
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
#[non_exhaustive]
pub enum Layer {
    /// User, mount, PID, IPC and network namespaces of the program's own (unprivileged user
    /// namespaces; containers often refuse them). Without them the program keeps the host's
    /// view: file metadata outside the write paths, other processes in `/proc`, and the
    /// protected and hidden paths are guarded by nothing but permission bits.
    Namespaces,
    /// Landlock's rule on device ioctls (ABI 5, Linux 6.10): without it a program may send
    /// ioctls to the devices it can open.
    DeviceIoctl,
    /// Landlock's scopes (ABI 6, Linux 6.12): without them, and without namespaces, a program
    /// may signal processes outside its sandbox and reach abstract Unix sockets.
    Scopes,
}

impl Layer {
    /// Every layer, in the order they are reported.
    pub const ALL: [Layer; 3] = [Layer::Namespaces, Layer::DeviceIoctl, Layer::Scopes];

    /// Its name, as manifests write it.
    pub fn as_str(self) -> &'static str {
        match self {
            Layer::Namespaces => "namespaces",
            Layer::DeviceIoctl => "device-ioctl",
            Layer::Scopes => "scopes",
        }
    }
}

impl Layer {
    /// What the layer is, in words, for messages.
    pub(crate) fn describe(self) -> &'static str {
        match self {
            Layer::Namespaces => {
                "user namespaces for the sandbox (user, mount, PID, IPC and network namespaces of the program's own)"
            }
            Layer::DeviceIoctl => "Landlock's device ioctl rule (Landlock ABI 5, Linux 6.10)",
            Layer::Scopes => {
                "Landlock's signal and abstract-socket scopes (Landlock ABI 6, Linux 6.12)"
            }
        }
    }
}

impl fmt::Display for Layer {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// A name that is not a [`Layer`]'s.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ParseLayerError(String);

impl fmt::Display for ParseLayerError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let names: Vec<String> =
            Layer::ALL.iter().map(|layer| format!("{:?}", layer.as_str())).collect();
        write!(f, "unknown sandbox layer {:?}: expected one of {}", self.0, names.join(", "))
    }
}

impl std::error::Error for ParseLayerError {}

impl FromStr for Layer {
    type Err = ParseLayerError;

    fn from_str(name: &str) -> Result<Self, Self::Err> {
        Layer::ALL
            .into_iter()
            .find(|layer| layer.as_str() == name)
            .ok_or_else(|| ParseLayerError(name.to_owned()))
    }
}
