//! The resource limits of a sandboxed program.

use serde::{Deserialize, Serialize};

/// Resource limits; `None` leaves one as the caller has it.
///
/// Each limit is per process (rlimits) except `processes`: as an unprivileged user it is
/// `RLIMIT_NPROC`, which counts every process of that user; as root, which `RLIMIT_NPROC` does
/// not bind, the call gets a `pids` cgroup of its own, which counts only the call's processes
/// and is killed whole after the call.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[non_exhaustive]
pub struct Limits {
    /// [`Rule::Processes`](super::Rule::Processes).
    pub processes: Option<u64>,
    /// [`Rule::AddressSpace`](super::Rule::AddressSpace), in bytes.
    pub address_space: Option<u64>,
    /// [`Rule::CpuSeconds`](super::Rule::CpuSeconds).
    pub cpu_seconds: Option<u64>,
    /// [`Rule::FileSize`](super::Rule::FileSize), in bytes.
    pub file_size: Option<u64>,
    /// [`Rule::OpenFiles`](super::Rule::OpenFiles).
    pub open_files: Option<u64>,
}

/// One GiB.
const GIB: u64 = 1024 * 1024 * 1024;

impl Default for Limits {
    /// Sane limits for a tool: 256 processes, 8 GiB of address space, 300 CPU seconds, files
    /// up to 4 GiB, 1,024 open files.
    fn default() -> Self {
        Self {
            processes: Some(256),
            address_space: Some(8 * GIB),
            cpu_seconds: Some(300),
            file_size: Some(4 * GIB),
            open_files: Some(1024),
        }
    }
}

impl Limits {
    /// No limit at all.
    pub fn none() -> Self {
        Self {
            processes: None,
            address_space: None,
            cpu_seconds: None,
            file_size: None,
            open_files: None,
        }
    }
}
