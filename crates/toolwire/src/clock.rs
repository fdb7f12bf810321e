//! Wall-clock times read off the monotonic clock, so that a receipt costs two clock reads
//! rather than three.
//!
//! Each thread keeps an anchor: an instant and the system-clock time read with it. A wall
//! time is the anchor's plus the instant's distance from it. An anchor is read again once it
//! is a second old, so a step of the system clock shows in receipts within a second.

use std::cell::Cell;
use std::time::{Duration, Instant, SystemTime};

/// How long an anchor is trusted before it is read again.
const REFRESH: Duration = Duration::from_secs(1);

#[derive(Clone, Copy)]
struct Anchor {
    instant: Instant,
    wall: SystemTime,
}

impl Anchor {
    fn read() -> Self {
        Self { instant: Instant::now(), wall: SystemTime::now() }
    }

    /// The system-clock time of `at`, unless `at` is a second or more after this anchor.
    fn wall_time(self, at: Instant) -> Option<SystemTime> {
        match at.checked_duration_since(self.instant) {
            Some(since) if since < REFRESH => self.wall.checked_add(since),
            Some(_) => None,
            None => self.wall.checked_sub(self.instant.duration_since(at)),
        }
    }
}

thread_local! {
    static ANCHOR: Cell<Option<Anchor>> = const { Cell::new(None) };
}

/// The system-clock time of `at`, an instant read on any thread.
pub(crate) fn wall_time(at: Instant) -> SystemTime {
    ANCHOR.with(|anchor| {
        if let Some(wall) = anchor.get().and_then(|a| a.wall_time(at)) {
            return wall;
        }
        let fresh = Anchor::read();
        anchor.set(Some(fresh));
        fresh.wall_time(at).unwrap_or(fresh.wall)
    })
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
            let (at, wall) = (Instant::now(), SystemTime::now());
            assert!(gap(wall_time(at), wall) < Duration::from_millis(5));
        }
    }

    #[test]
    fn later_instants_are_later_wall_times() {
        let first = Instant::now();
        std::thread::sleep(Duration::from_millis(2));
        let second = Instant::now();
        let (a, b) = (wall_time(first), wall_time(second));
        assert!(b > a);
        assert!(gap(b, a) >= Duration::from_millis(2));
    }

    #[test]
    fn an_instant_older_than_the_anchor_still_gets_its_time() {
        let old = Instant::now();
        std::thread::sleep(Duration::from_millis(2));
        let _ = wall_time(Instant::now()); // anchors after `old`
        let (expected, got) = (SystemTime::now() - old.elapsed(), wall_time(old));
        assert!(gap(got, expected) < Duration::from_millis(5));
    }
}
