//! A command's media output: stdout, or a file it wrote, as a content part of its result.
//!
//! The file is read by toolwire, outside the sandbox, from a folder the program could write:
//! it is opened beneath the working folder with no symlink on the way (a program cannot point
//! it at the host's secrets), must be a regular file with no other hard link, written during
//! the call, and no larger than the output limit.

use std::path::Path;
use std::time::{Duration, SystemTime};

use toolwire::media::Part;

use crate::spec::MediaOutput;

/// How much older than the call's start a file's modification time may be: the kernel stamps
/// files from a clock that lags the system clock by up to a few milliseconds.
const CLOCK_SLACK: Duration = Duration::from_secs(1);

/// The part `bytes` of `media` make: an image, audio, or a file named `name`.
pub(super) fn part(media: &MediaOutput, name: &str, bytes: Vec<u8>) -> Part {
    Part::from_mime(name, media.mime_type(), bytes)
}

/// The bytes of the file at `path` beneath `cwd`, as the module says.
///
/// # Errors
///
/// What is wrong, in words: missing, a symlink on the way, not a regular file, linked
/// elsewhere, older than the call, or too large.
#[cfg(target_os = "linux")]
pub(super) fn read(
    cwd: &Path,
    path: &Path,
    limit: u64,
    started: SystemTime,
) -> Result<Vec<u8>, String> {
    use std::io::Read as _;

    use rustix::fs::{Mode, OFlags, ResolveFlags, fstat, openat2};

    let shown = path.display();
    let dir =
        rustix::fs::open(cwd, OFlags::PATH | OFlags::DIRECTORY | OFlags::CLOEXEC, Mode::empty())
            .map_err(|error| {
                format!("cannot open the working folder {}: {error}", cwd.display())
            })?;
    let resolve = ResolveFlags::BENEATH | ResolveFlags::NO_SYMLINKS | ResolveFlags::NO_MAGICLINKS;
    let flags = OFlags::RDONLY | OFlags::CLOEXEC | OFlags::NOFOLLOW | OFlags::NONBLOCK;
    let fd = openat2(&dir, path, flags, Mode::empty(), resolve).map_err(|error| match error {
        rustix::io::Errno::NOENT => format!("it did not write its output file {shown}"),
        rustix::io::Errno::LOOP | rustix::io::Errno::XDEV => {
            format!("its output file {shown} is reached through a symlink, which is refused")
        }
        other => format!("cannot open its output file {shown}: {other}"),
    })?;
    let stat =
        fstat(&fd).map_err(|error| format!("cannot read its output file {shown}: {error}"))?;
    if rustix::fs::FileType::from_raw_mode(stat.st_mode) != rustix::fs::FileType::RegularFile {
        return Err(format!("its output file {shown} is not a regular file"));
    }
    if stat.st_nlink != 1 {
        return Err(format!("its output file {shown} has other hard links, which is refused"));
    }
    let modified = SystemTime::UNIX_EPOCH
        + Duration::new(
            u64::try_from(stat.st_mtime).unwrap_or(0),
            u32::try_from(stat.st_mtime_nsec).unwrap_or(0),
        );
    if modified + CLOCK_SLACK < started {
        return Err(format!("its output file {shown} was not written by this call (it is older)"));
    }
    let size = u64::try_from(stat.st_size).unwrap_or(u64::MAX);
    if size > limit {
        return Err(format!(
            "its output file {shown} has {size} bytes, more than its limit of {limit}"
        ));
    }
    let mut bytes = Vec::with_capacity(usize::try_from(size).unwrap_or(0));
    std::fs::File::from(fd)
        .take(limit.saturating_add(1))
        .read_to_end(&mut bytes)
        .map_err(|error| format!("cannot read its output file {shown}: {error}"))?;
    if bytes.len() as u64 > limit {
        return Err(format!("its output file {shown} grew past its limit of {limit} bytes"));
    }
    Ok(bytes)
}

/// Output files are read on Linux only, where they can be opened with no symlink on the way.
#[cfg(not(target_os = "linux"))]
pub(super) fn read(
    _cwd: &Path,
    path: &Path,
    _limit: u64,
    _started: SystemTime,
) -> Result<Vec<u8>, String> {
    Err(format!("its output file {} cannot be read safely on this system", path.display()))
}
