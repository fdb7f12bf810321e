//! A size in bytes as people read it.

use std::fmt;

/// `512 bytes`, `40.0 KiB`, `1.2 MiB`.
pub(crate) struct Size(pub(crate) usize);

impl fmt::Display for Size {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        const KIB: f64 = 1024.0;
        let bytes = self.0 as f64;
        if self.0 < 1024 {
            write!(f, "{} bytes", self.0)
        } else if bytes < KIB * KIB {
            write!(f, "{:.1} KiB", bytes / KIB)
        } else {
            write!(f, "{:.1} MiB", bytes / (KIB * KIB))
        }
    }
}
