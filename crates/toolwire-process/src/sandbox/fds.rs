//! The descriptors a launcher inherited: the program gets none above 2.
//!
//! Rust opens every descriptor close-on-exec, but toolwire itself may have inherited some
//! that are not (a file its own parent left open, a connected socket); without this, they
//! would pass to the program, with whatever they reach, sandbox or not.

use std::os::fd::RawFd;

/// Closes every descriptor above 2 but `keep`. Call it before this process opens anything
/// it means to keep, since it closes whatever is open.
///
/// # Errors
///
/// When the open descriptors cannot be listed (no `/proc`), or one cannot be closed.
pub(crate) fn close_inherited(keep: &[RawFd]) -> Result<(), String> {
    let listed: Vec<RawFd> = std::fs::read_dir("/proc/self/fd")
        .map_err(|error| format!("cannot list the inherited descriptors: {error}"))?
        .filter_map(|entry| entry.ok()?.file_name().to_str()?.parse().ok())
        .collect();
    for fd in listed.into_iter().filter(|fd| *fd > 2 && !keep.contains(fd)) {
        match nix::unistd::close(fd) {
            // The listing's own descriptor, closed since.
            Ok(()) | Err(nix::errno::Errno::EBADF) => {}
            Err(error) => {
                return Err(format!("cannot close the inherited descriptor {fd}: {error}"));
            }
        }
    }
    Ok(())
}
