//! Identifiers: [`InvocationId`], unique across processes and machines and ordered by time,
//! and the ids of suspension requests.

use std::fmt;
use std::str::FromStr;
use std::time::{SystemTime, UNIX_EPOCH};

use serde::{Deserialize, Deserializer, Serialize, Serializer};
use uuid::Uuid;

/// The unique id of one invocation of a tool: a UUIDv7, shown in its hyphenated form.
///
/// Its first 48 bits are the Unix time in milliseconds, so ids sort by when they were made
/// (to the millisecond), and a journal can use them as keys. The other 74 bits are random,
/// drawn from a per-thread generator seeded from the operating system, so ids made at the same
/// millisecond by different threads, processes or machines do not meet. An id parses back from
/// its [`Display`](fmt::Display) form:
///
/// ```
/// use toolwire::InvocationId;
///
/// let id = InvocationId::new();
/// let shown = id.to_string();
/// assert_eq!(shown.len(), 36);
/// assert_eq!(shown.parse::<InvocationId>().unwrap(), id);
/// assert!(InvocationId::new() > id || InvocationId::new().timestamp_millis() >= id.timestamp_millis());
/// assert!("inv-1".parse::<InvocationId>().is_err());
/// ```
///
/// Read it in a handler with [`ToolContext::invocation_id`](crate::ToolContext::invocation_id).
#[derive(Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct InvocationId(Uuid);

impl InvocationId {
    /// A new id for the current time.
    pub fn new() -> Self {
        Self::at(SystemTime::now())
    }

    /// A new id whose time part is `time`; times before 1970 count as 1970.
    pub(crate) fn at(time: SystemTime) -> Self {
        let millis = time.duration_since(UNIX_EPOCH).map_or(0, |since| since.as_millis());
        let millis = u64::try_from(millis).unwrap_or(u64::MAX);
        let random = fastrand::u128(..).to_be_bytes();
        let mut tail = [0u8; 10];
        tail.copy_from_slice(&random[..10]);
        Self(uuid::Builder::from_unix_timestamp_millis(millis, &tail).into_uuid())
    }

    /// The milliseconds since the Unix epoch at which the id was made.
    pub fn timestamp_millis(&self) -> u64 {
        let bytes = self.0.as_bytes();
        bytes[..6].iter().fold(0, |acc, &byte| (acc << 8) | u64::from(byte))
    }

    /// The id as a UUID.
    pub fn as_uuid(&self) -> &Uuid {
        &self.0
    }
}

impl Default for InvocationId {
    fn default() -> Self {
        Self::new()
    }
}

impl fmt::Display for InvocationId {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        fmt::Display::fmt(&self.0.hyphenated(), f)
    }
}

impl fmt::Debug for InvocationId {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "InvocationId({self})")
    }
}

/// Text that is not an [`InvocationId`]: not a UUID, or a UUID of another version.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ParseIdError {
    kind: ParseIdErrorKind,
    problem: String,
}

/// Why text is not an [`InvocationId`]. New kinds may be added.
#[non_exhaustive]
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum ParseIdErrorKind {
    /// The text is not a UUID.
    NotUuid,
    /// The text is a UUID, but not of version 7.
    WrongVersion,
}

impl ParseIdError {
    /// Why the text is not an id.
    pub fn kind(&self) -> ParseIdErrorKind {
        self.kind
    }
}

impl fmt::Display for ParseIdError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "invalid invocation id: {}", self.problem)
    }
}

impl std::error::Error for ParseIdError {
    /// The UUID parser's message is part of the text; there is no further cause.
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        None
    }
}

impl FromStr for InvocationId {
    type Err = ParseIdError;

    fn from_str(text: &str) -> Result<Self, ParseIdError> {
        let shown = super::clip(text, 64);
        let uuid = Uuid::try_parse(text).map_err(|e| ParseIdError {
            kind: ParseIdErrorKind::NotUuid,
            problem: format!("{shown:?} is not a UUID: {e}"),
        })?;
        if uuid.get_version_num() != 7 {
            let problem = format!("{shown:?} is a version {} UUID, not 7", uuid.get_version_num());
            return Err(ParseIdError { kind: ParseIdErrorKind::WrongVersion, problem });
        }
        Ok(Self(uuid))
    }
}

impl Serialize for InvocationId {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        serializer.collect_str(self)
    }
}

impl<'de> Deserialize<'de> for InvocationId {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        let text = <std::borrow::Cow<'de, str>>::deserialize(deserializer)?;
        text.parse().map_err(serde::de::Error::custom)
    }
}

/// A fresh id for a suspension request: `req-` and 32 random hex digits.
pub(crate) fn request_id() -> String {
    format!("req-{:032x}", fastrand::u128(..))
}
