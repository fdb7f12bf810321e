//! The program's view of the files, set up in its mount namespace by the first process of
//! its PID namespace: everything read-only, but for the write paths; a `/dev` of its own
//! with the harmless devices only; a `/proc` of its own PID namespace; the protected paths
//! read-only even beneath a write path, and the hidden ones out of reach.
//!
//! Read-only mounts stop what Landlock does not govern: changing a file's mode, owner,
//! extended attributes or times outside the write paths. Every path is pinned with
//! `openat2(RESOLVE_NO_SYMLINKS)` and mounted through `/proc/self/fd`, so that a symlink
//! swapped in by a concurrent call cannot move a mount elsewhere.

mod dev;
mod table;

use std::collections::HashMap;
use std::os::fd::{AsRawFd, OwnedFd};
use std::path::{Path, PathBuf};

use nix::mount::{MsFlags, mount};
use nix::sys::statvfs::{FsFlags, fstatvfs};
use rustix::fs::{Mode, OFlags, ResolveFlags, openat2};

use super::plan::Call;

/// The per-mount flags a remount must keep (a user namespace may not change them).
const KEPT: [(FsFlags, MsFlags); 6] = [
    (FsFlags::ST_NOSUID, MsFlags::MS_NOSUID),
    (FsFlags::ST_NODEV, MsFlags::MS_NODEV),
    (FsFlags::ST_NOEXEC, MsFlags::MS_NOEXEC),
    (FsFlags::ST_NOATIME, MsFlags::MS_NOATIME),
    (FsFlags::ST_NODIRATIME, MsFlags::MS_NODIRATIME),
    (FsFlags::ST_RELATIME, MsFlags::MS_RELATIME),
];

/// The program's view of the files, before its call is known: every mount read-only, the
/// new `/dev` and `/proc`. It remembers each mount's own flags, which the write paths keep.
pub(crate) struct View {
    /// The flags of each mount before it was made read-only, by id.
    original: HashMap<u64, MsFlags>,
}

impl View {
    /// Makes every mount private and read-only, and mounts the new `/dev` and `/proc`.
    ///
    /// # Errors
    ///
    /// A message naming the mount and the step that failed; the program must then not run.
    pub(crate) fn prepare() -> Result<Self, String> {
        let devices = dev::Devices::pin()?;
        let mounts = table::read()?;
        mount(None::<&str>, "/", None::<&str>, MsFlags::MS_REC | MsFlags::MS_PRIVATE, None::<&str>)
            .map_err(|error| format!("cannot make the mounts private: {error}"))?;
        for point in &mounts {
            read_only(point)?;
        }
        devices.mount()?;
        dev::proc()?;
        Ok(Self { original: mounts.into_iter().map(|mount| (mount.id, mount.flags)).collect() })
    }

    /// Mounts the write paths of `call` writable, its protected paths read-only over them,
    /// hides its hidden paths, then moves into its working folder as the view shows it.
    ///
    /// # Errors
    ///
    /// A message naming the path and the step that failed; the program must then not run.
    pub(crate) fn finish(&self, call: &Call) -> Result<(), String> {
        for path in outermost(&call.write) {
            let pinned = Pinned::open(path)?;
            let flags = self.writable_flags(&pinned);
            pinned.bind(flags)?;
        }
        for path in &call.protected {
            if let Some(pinned) = Pinned::open_if_there(path)? {
                pinned.bind(MsFlags::MS_RDONLY | pinned.flags)?;
            }
        }
        for path in &call.hidden {
            if let Some(pinned) = Pinned::open_if_there(path)? {
                pinned.hide()?;
            }
        }
        let cwd = Pinned::open(&call.cwd)?;
        nix::unistd::fchdir(&cwd.fd)
            .map_err(|error| format!("cannot move into {}: {error}", call.cwd.display()))
    }

    /// The flags of a writable mount of `pinned`: those its own mount had, with nosuid and
    /// nodev, and read-only only when its own mount was.
    fn writable_flags(&self, pinned: &Pinned) -> MsFlags {
        let original = table::mount_of(pinned.fd.as_raw_fd())
            .and_then(|id| self.original.get(&id).copied())
            .unwrap_or(pinned.flags);
        original | MsFlags::MS_NOSUID | MsFlags::MS_NODEV
    }
}

/// The paths of `paths` that lie beneath no other: a mount of the outer one covers them.
fn outermost(paths: &[PathBuf]) -> impl Iterator<Item = &PathBuf> {
    paths.iter().filter(|path| !paths.iter().any(|other| other != *path && path.starts_with(other)))
}

/// Remounts the mount at `point` read-only, keeping its other flags.
fn read_only(point: &table::Mount) -> Result<(), String> {
    let flags = MsFlags::MS_BIND | MsFlags::MS_REMOUNT | MsFlags::MS_RDONLY | point.flags;
    match mount(None::<&str>, &point.point, None::<&str>, flags, None::<&str>) {
        // Gone, or covered by another mount since the table was read.
        Ok(()) | Err(nix::errno::Errno::ENOENT) => Ok(()),
        Err(error) => Err(format!("cannot make {} read-only: {error}", point.point.display())),
    }
}

/// A path opened without following any symlink on the way, with the flags of its mount.
struct Pinned {
    path: PathBuf,
    fd: OwnedFd,
    /// The flags a remount of its mount must keep.
    flags: MsFlags,
}

impl Pinned {
    /// Opens `path`, which must go through no symlink.
    fn open(path: &Path) -> Result<Self, String> {
        Self::open_if_there(path)?.ok_or_else(|| format!("{} is gone", path.display()))
    }

    /// Opens `path` if it exists.
    fn open_if_there(path: &Path) -> Result<Option<Self>, String> {
        let how = OFlags::PATH | OFlags::CLOEXEC | OFlags::NOFOLLOW;
        let resolve = ResolveFlags::NO_SYMLINKS | ResolveFlags::NO_MAGICLINKS;
        let fd = match openat2(rustix::fs::CWD, path, how, Mode::empty(), resolve) {
            Ok(fd) => fd,
            Err(rustix::io::Errno::NOENT) => return Ok(None),
            Err(rustix::io::Errno::LOOP) => {
                return Err(format!(
                    "{} was replaced by a symlink since the call was prepared; refused",
                    path.display()
                ));
            }
            Err(error) => return Err(format!("cannot open {}: {error}", path.display())),
        };
        let stat = fstatvfs(&fd)
            .map_err(|error| format!("cannot read the mount of {}: {error}", path.display()))?;
        let flags = KEPT
            .iter()
            .filter(|(fs, _)| stat.flags().contains(*fs))
            .fold(MsFlags::empty(), |all, (_, ms)| all | *ms);
        Ok(Some(Self { path: path.to_owned(), fd, flags }))
    }

    /// `/proc/self/fd/N` for this path: the very file, whatever its path now leads to.
    fn handle(&self) -> String {
        format!("/proc/self/fd/{}", self.fd.as_raw_fd())
    }

    /// Mounts this path over itself (with everything mounted beneath it), then gives the new
    /// mount `flags`.
    fn bind(&self, flags: MsFlags) -> Result<(), String> {
        self.bind_from(&self.handle(), flags)
    }

    /// Mounts `source` over this path, then gives the new mount `flags`.
    fn bind_from(&self, source: &str, flags: MsFlags) -> Result<(), String> {
        let failed =
            |error: nix::Error| format!("cannot mount over {}: {error}", self.path.display());
        let bind = MsFlags::MS_BIND | MsFlags::MS_REC;
        mount(Some(source), self.handle().as_str(), None::<&str>, bind, None::<&str>)
            .map_err(failed)?;
        // The new mount, on top: found by the path again, through no symlink.
        let top = Pinned::open(&self.path)?;
        let remount = MsFlags::MS_BIND | MsFlags::MS_REMOUNT | flags;
        mount(None::<&str>, top.handle().as_str(), None::<&str>, remount, None::<&str>)
            .map_err(failed)
    }

    /// Covers this path: a file with a device no one may open, a folder with an empty,
    /// read-only one that no one may list.
    fn hide(&self) -> Result<(), String> {
        let sealed =
            MsFlags::MS_RDONLY | MsFlags::MS_NOSUID | MsFlags::MS_NODEV | MsFlags::MS_NOEXEC;
        let is_dir = std::fs::metadata(&self.path).map(|meta| meta.is_dir()).unwrap_or(false);
        if !is_dir {
            return self.bind_from("/dev/null", sealed);
        }
        mount(
            Some("tmpfs"),
            self.handle().as_str(),
            Some("tmpfs"),
            sealed,
            Some("size=4k,mode=000"),
        )
        .map_err(|error| format!("cannot hide {}: {error}", self.path.display()))
    }
}
