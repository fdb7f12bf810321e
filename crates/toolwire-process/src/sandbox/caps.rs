//! Capabilities: a sandboxed program has none, even when toolwire runs as root, and cannot
//! get any back by running a program (setuid root, or root's own programs).

use rustix::io::Errno;
use rustix::thread::{self, CapabilitiesSecureBits, CapabilitySet, CapabilitySets};

/// Makes sure no program this process starts gets a capability back: when it may
/// (`CAP_SETPCAP`), empties its bounding set and locks the secure bits that stop root from
/// getting them at `exec`; and clears the ambient set. What it holds itself stays, until
/// [`drop_all`].
///
/// # Errors
///
/// A message naming the step the kernel refused.
pub(crate) fn forbid_regaining() -> Result<(), String> {
    let held = thread::capabilities(None).map_err(|error| failed("the capabilities", error))?;
    if held.effective.contains(CapabilitySet::SETPCAP) {
        for bit in 0..64 {
            match thread::remove_capability_from_bounding_set(CapabilitySet::from_bits_retain(
                1 << bit,
            )) {
                Ok(()) => {}
                // Past the kernel's last capability.
                Err(Errno::INVAL) => break,
                Err(error) => return Err(failed("the bounding set", error)),
            }
        }
        let locked = CapabilitiesSecureBits::NO_ROOT
            | CapabilitiesSecureBits::NO_ROOT_LOCKED
            | CapabilitiesSecureBits::NO_SETUID_FIXUP
            | CapabilitiesSecureBits::NO_SETUID_FIXUP_LOCKED
            | CapabilitiesSecureBits::KEEP_CAPS_LOCKED
            | CapabilitiesSecureBits::NO_CAP_AMBIENT_RAISE;
        thread::set_capabilities_secure_bits(locked).map_err(|e| failed("root's privileges", e))?;
    }
    thread::clear_ambient_capability_set().map_err(|error| failed("the ambient set", error))
}

/// Drops every capability this process has (effective, permitted, inheritable, ambient).
///
/// # Errors
///
/// A message naming the step the kernel refused, or the capability left.
pub(crate) fn drop_all() -> Result<(), String> {
    thread::clear_ambient_capability_set().map_err(|error| failed("the ambient set", error))?;
    let none = CapabilitySet::empty();
    let empty = CapabilitySets { effective: none, permitted: none, inheritable: none };
    thread::set_capabilities(None, empty).map_err(|error| failed("the capabilities", error))?;
    let left = thread::capabilities(None).map_err(|error| failed("the capabilities", error))?;
    if left != empty {
        return Err(format!("capabilities are left after dropping them: {left:?}"));
    }
    Ok(())
}

/// Why `what` could not be dropped.
fn failed(what: &str, error: Errno) -> String {
    format!("cannot drop {what}: {error}")
}
