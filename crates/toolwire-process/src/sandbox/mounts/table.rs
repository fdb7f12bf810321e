//! The mount table of this process (`/proc/self/mountinfo`), as the remounts need it: each
//! mount's point and the flags that must be kept when it is remounted.

use std::path::PathBuf;

use nix::mount::MsFlags;

/// One mount.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(super) struct Mount {
    /// Its id, as `/proc/self/fdinfo` names it (`mnt_id`).
    pub(super) id: u64,
    /// Where it is mounted.
    pub(super) point: PathBuf,
    /// Its per-mount flags: read-only, nosuid, nodev, noexec and the access-time ones.
    pub(super) flags: MsFlags,
}

/// The mounts of this process, parents before children.
///
/// # Errors
///
/// When the table cannot be read.
pub(super) fn read() -> Result<Vec<Mount>, String> {
    let text = std::fs::read_to_string("/proc/self/mountinfo")
        .map_err(|error| format!("cannot read the mount table: {error}"))?;
    Ok(text.lines().filter_map(parse).collect())
}

/// One line: `ID PARENT MAJ:MIN ROOT POINT OPTIONS ...`.
fn parse(line: &str) -> Option<Mount> {
    let mut fields = line.split(' ');
    let id = fields.next()?.parse().ok()?;
    let point = unescape(fields.nth(3)?);
    let flags = fields.next()?.split(',').fold(MsFlags::empty(), |flags, option| {
        flags
            | match option {
                "ro" => MsFlags::MS_RDONLY,
                "nosuid" => MsFlags::MS_NOSUID,
                "nodev" => MsFlags::MS_NODEV,
                "noexec" => MsFlags::MS_NOEXEC,
                "noatime" => MsFlags::MS_NOATIME,
                "nodiratime" => MsFlags::MS_NODIRATIME,
                "relatime" => MsFlags::MS_RELATIME,
                _ => MsFlags::empty(),
            }
    });
    let atime = MsFlags::MS_NOATIME | MsFlags::MS_RELATIME;
    let flags = if flags.intersects(atime) { flags } else { flags | MsFlags::MS_STRICTATIME };
    Some(Mount { id, point: PathBuf::from(point), flags })
}

/// A mount point with the kernel's octal escapes (`\040` for a space) undone.
fn unescape(field: &str) -> String {
    let bytes = field.as_bytes();
    let mut out = Vec::with_capacity(bytes.len());
    let mut i = 0;
    while i < bytes.len() {
        let octal = bytes.get(i + 1..i + 4).filter(|d| d.iter().all(|b| (b'0'..=b'7').contains(b)));
        match (bytes[i], octal) {
            (b'\\', Some(digits)) => {
                out.push(digits.iter().fold(0u8, |n, d| n.wrapping_mul(8).wrapping_add(d - b'0')));
                i += 4;
            }
            (byte, _) => {
                out.push(byte);
                i += 1;
            }
        }
    }
    String::from_utf8_lossy(&out).into_owned()
}

/// The id of the mount that the open `fd` lies on, from `/proc/self/fdinfo`.
pub(super) fn mount_of(fd: std::os::fd::RawFd) -> Option<u64> {
    let info = std::fs::read_to_string(format!("/proc/self/fdinfo/{fd}")).ok()?;
    let id = info.lines().find_map(|line| line.strip_prefix("mnt_id:"))?;
    id.trim().parse().ok()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_line_gives_the_point_with_its_escapes_undone_and_the_flags_to_keep() {
        let line = "28 27 0:25 / /mnt/a\\040b ro,nosuid,nodev,relatime - tmpfs x ro,size=4k";
        let mount = parse(line).expect("a mount");
        assert_eq!(mount.id, 28);
        assert_eq!(mount.point, PathBuf::from("/mnt/a b"));
        let expected =
            MsFlags::MS_RDONLY | MsFlags::MS_NOSUID | MsFlags::MS_NODEV | MsFlags::MS_RELATIME;
        assert_eq!(mount.flags, expected);
        let strict = parse("1 0 8:1 / / rw - ext4 /dev/sda rw").expect("a mount");
        assert_eq!(strict.flags, MsFlags::MS_STRICTATIME);
    }
}
