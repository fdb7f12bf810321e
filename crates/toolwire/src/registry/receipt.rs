//! [`Receipt`]: the record of one invocation.

use std::sync::Arc;
use std::time::{Duration, SystemTime, UNIX_EPOCH};

use serde::ser::{Serialize, SerializeStruct, Serializer};

use crate::id::InvocationId;
use crate::result::ToolResult;

/// What happened in one invocation through a [`Registry`](crate::Registry).
///
/// It serializes as
/// `{"invocation_id", "tool", "call_id", "started_at", "duration_ms", "result"}`, where
/// `started_at` is an RFC 3339 UTC timestamp with milliseconds, `duration_ms` a number of
/// milliseconds, and `result` the [`ToolResult`] as the model sees it.
#[derive(Debug, Clone)]
pub struct Receipt {
    /// Unique per invocation; the same id the handler saw in its context.
    pub invocation_id: InvocationId,
    /// The name that was called, whether or not a tool has it.
    pub tool: Arc<str>,
    /// The model's id for the call, if one was given.
    pub call_id: Option<Arc<str>>,
    /// When the invocation started.
    pub started_at: SystemTime,
    /// How long it took, from its first poll to its result.
    pub duration: Duration,
    /// What the model reads.
    pub result: ToolResult,
}

impl Serialize for Receipt {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        let mut out = serializer.serialize_struct("Receipt", 6)?;
        out.serialize_field("invocation_id", &self.invocation_id)?;
        out.serialize_field("tool", &*self.tool)?;
        out.serialize_field("call_id", &self.call_id.as_deref())?;
        out.serialize_field("started_at", &rfc3339(self.started_at))?;
        out.serialize_field("duration_ms", &(self.duration.as_secs_f64() * 1000.0))?;
        out.serialize_field("result", &self.result)?;
        out.end()
    }
}

/// `time` as `YYYY-MM-DDTHH:MM:SS.mmmZ`; times before 1970 are written as the epoch.
fn rfc3339(time: SystemTime) -> String {
    let since = time.duration_since(UNIX_EPOCH).unwrap_or_default();
    let secs = since.as_secs();
    let (days, rest) = (secs / 86_400, secs % 86_400);
    let (year, month, day) = civil_from_days(days);
    let (hour, minute, second) = (rest / 3600, rest % 3600 / 60, rest % 60);
    let millis = since.subsec_millis();
    format!("{year:04}-{month:02}-{day:02}T{hour:02}:{minute:02}:{second:02}.{millis:03}Z")
}

/// The proleptic Gregorian date of a count of days since 1970-01-01 (Howard Hinnant's
/// published civil-from-days algorithm).
fn civil_from_days(days: u64) -> (u64, u64, u64) {
    let z = days + 719_468;
    let era = z / 146_097;
    let doe = z % 146_097;
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let day = doy - (153 * mp + 2) / 5 + 1;
    let month = if mp < 10 { mp + 3 } else { mp - 9 };
    let year = yoe + era * 400 + u64::from(month <= 2);
    (year, month, day)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn formats_known_instants() {
        assert_eq!(rfc3339(UNIX_EPOCH), "1970-01-01T00:00:00.000Z");
        let leap = UNIX_EPOCH + Duration::from_millis(951_782_400_123); // 2000-02-29
        assert_eq!(rfc3339(leap), "2000-02-29T00:00:00.123Z");
        let late = UNIX_EPOCH + Duration::from_secs(1_795_003_199); // 2026-11-18
        assert_eq!(rfc3339(late), "2026-11-18T11:59:59.000Z");
    }
}
