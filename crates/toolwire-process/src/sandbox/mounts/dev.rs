//! The program's own `/dev` and `/proc`.
//!
//! `/dev` is a small read-only tmpfs holding the devices a program may need and that reach
//! nothing (`null`, `zero`, `full`, `random`, `urandom`, each the host's own, mounted in), a
//! private `/dev/shm`, and the usual links into `/proc/self/fd`: no disk, no terminal, no
//! memory device. `/proc` is a new procfs of the program's PID namespace, which shows only
//! its own processes; its kernel-wide files (`/proc/sys`, `/proc/sysrq-trigger`, ...) are
//! read-only.

use std::os::fd::{AsRawFd, OwnedFd};
use std::path::Path;

use nix::mount::{MsFlags, mount};
use rustix::fs::{Mode, OFlags, openat};

/// The devices a program gets.
const DEVICES: [&str; 5] = ["null", "zero", "full", "random", "urandom"];
/// The links of `/dev` into `/proc`.
const LINKS: [(&str, &str); 4] = [
    ("fd", "/proc/self/fd"),
    ("stdin", "/proc/self/fd/0"),
    ("stdout", "/proc/self/fd/1"),
    ("stderr", "/proc/self/fd/2"),
];
/// The kernel-wide files of `/proc`, kept read-only.
const PROC_READ_ONLY: [&str; 5] = ["sys", "sysrq-trigger", "irq", "bus", "fs"];

/// The host's devices, opened before the host's `/dev` is covered.
pub(super) struct Devices(Vec<(&'static str, OwnedFd)>);

impl Devices {
    /// Opens the host's devices.
    pub(super) fn pin() -> Result<Self, String> {
        let open = |name: &'static str| {
            openat(
                rustix::fs::CWD,
                format!("/dev/{name}"),
                OFlags::PATH | OFlags::CLOEXEC,
                Mode::empty(),
            )
            .map(|fd| (name, fd))
            .map_err(|error| format!("cannot open /dev/{name}: {error}"))
        };
        DEVICES.into_iter().map(open).collect::<Result<_, _>>().map(Self)
    }

    /// Mounts the new `/dev`.
    pub(super) fn mount(&self) -> Result<(), String> {
        let base = MsFlags::MS_NOSUID | MsFlags::MS_NOEXEC;
        tmpfs("/dev", base, "mode=755,size=64k")?;
        for (name, fd) in &self.0 {
            let target = format!("/dev/{name}");
            std::fs::File::create(&target)
                .map_err(|error| format!("cannot make {target}: {error}"))?;
            let source = format!("/proc/self/fd/{}", fd.as_raw_fd());
            mount(
                Some(source.as_str()),
                target.as_str(),
                None::<&str>,
                MsFlags::MS_BIND,
                None::<&str>,
            )
            .map_err(|error| format!("cannot mount {target}: {error}"))?;
        }
        for (name, target) in LINKS {
            std::os::unix::fs::symlink(target, Path::new("/dev").join(name))
                .map_err(|error| format!("cannot link /dev/{name}: {error}"))?;
        }
        std::fs::create_dir("/dev/shm")
            .map_err(|error| format!("cannot make /dev/shm: {error}"))?;
        tmpfs("/dev/shm", base | MsFlags::MS_NODEV, "mode=1777")?;
        let sealed = MsFlags::MS_BIND | MsFlags::MS_REMOUNT | MsFlags::MS_RDONLY | base;
        mount(None::<&str>, "/dev", None::<&str>, sealed, None::<&str>)
            .map_err(|error| format!("cannot make /dev read-only: {error}"))
    }
}

/// Mounts the procfs of this PID namespace on `/proc`, with its kernel-wide files read-only.
pub(super) fn proc() -> Result<(), String> {
    let flags = MsFlags::MS_NOSUID | MsFlags::MS_NODEV | MsFlags::MS_NOEXEC;
    mount(Some("proc"), "/proc", Some("proc"), flags, None::<&str>)
        .map_err(|error| format!("cannot mount /proc: {error}"))?;
    for name in PROC_READ_ONLY {
        let path = Path::new("/proc").join(name);
        if !path.exists() {
            continue;
        }
        let failed =
            |error: nix::Error| format!("cannot make {} read-only: {error}", path.display());
        mount(Some(&path), &path, None::<&str>, MsFlags::MS_BIND | MsFlags::MS_REC, None::<&str>)
            .map_err(failed)?;
        let remount = MsFlags::MS_BIND | MsFlags::MS_REMOUNT | MsFlags::MS_RDONLY | flags;
        mount(None::<&str>, &path, None::<&str>, remount, None::<&str>).map_err(failed)?;
    }
    Ok(())
}

/// Mounts a tmpfs at `point`.
fn tmpfs(point: &str, flags: MsFlags, options: &str) -> Result<(), String> {
    mount(Some("tmpfs"), point, Some("tmpfs"), flags, Some(options))
        .map_err(|error| format!("cannot mount a tmpfs at {point}: {error}"))
}
