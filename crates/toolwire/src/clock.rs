//! Wall-clock times read off the monotonic clock, so that a receipt costs two clock reads
//! rather than three.
//!
//! The offset between the two clocks is taken once and taken again whenever it is more than
//! a second old, so a step of the system clock shows in receipts within a second.

use std::sync::OnceLock;
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::{Duration, Instant, SystemTime, UNIX_EPOCH};

/// How long an offset is trusted before it is read again.
const REFRESH: Duration = Duration::from_secs(1);

/// The instant every other is measured from.
fn base() -> Instant {
    static BASE: OnceLock<Instant> = OnceLock::new();
    *BASE.get_or_init(Instant::now)
}

/// Nanoseconds from the Unix epoch to [`base`] on the system clock; 0 until first read.
static WALL_AT_BASE: AtomicU64 = AtomicU64::new(0);
/// Nanoseconds from [`base`] to the instant the offset was last read, plus one; 0 for never.
static READ_AT: AtomicU64 = AtomicU64::new(0);

fn nanos(duration: Duration) -> u64 {
    duration
        .as_secs()
        .saturating_mul(1_000_000_000)
        .saturating_add(u64::from(duration.subsec_nanos()))
}

/// Reads the offset between the clocks again, at `since_base` after [`base`].
fn refresh(base: Instant) -> u64 {
    let wall = SystemTime::now().duration_since(UNIX_EPOCH).unwrap_or_default();
    let since_base = Instant::now().saturating_duration_since(base);
    let wall_at_base = nanos(wall.saturating_sub(since_base));
    WALL_AT_BASE.store(wall_at_base, Ordering::Relaxed);
    READ_AT.store(nanos(since_base).saturating_add(1), Ordering::Relaxed);
    wall_at_base
}

/// The monotonic clock's reading now; pass it to [`wall_time`] later.
pub(crate) fn now() -> Instant {
    base(); // fixed before any instant it could be compared with
    Instant::now()
}

/// The system-clock time of `at`, an instant from [`now`].
pub(crate) fn wall_time(at: Instant) -> SystemTime {
    let base = base();
    let since_base = nanos(at.saturating_duration_since(base));
    let read_at = READ_AT.load(Ordering::Relaxed);
    let wall_at_base = if read_at == 0 || since_base.saturating_sub(read_at) > nanos(REFRESH) {
        refresh(base)
    } else {
        WALL_AT_BASE.load(Ordering::Relaxed)
    };
    UNIX_EPOCH + Duration::from_nanos(wall_at_base.saturating_add(since_base))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn gap(a: SystemTime, b: SystemTime) -> Duration {
        a.duration_since(b).unwrap_or_else(|e| e.duration())
    }

    #[test]
    fn wall_time_agrees_with_the_system_clock() {
        for _ in 0..3 {
            let (at, wall) = (now(), SystemTime::now());
            assert!(gap(wall_time(at), wall) < Duration::from_millis(5));
        }
    }

    #[test]
    fn later_instants_are_later_wall_times() {
        let first = now();
        std::thread::sleep(Duration::from_millis(2));
        let second = now();
        let (a, b) = (wall_time(first), wall_time(second));
        assert!(b > a);
        assert!(gap(b, a) >= Duration::from_millis(2));
    }
}
