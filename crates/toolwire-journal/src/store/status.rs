//! The states a call's row and a request's row are in, as their `state` columns hold them.
//!
//! Each is written by binding the enum (its text is [`as_str`](CallStatus::as_str)) and read
//! back through [`FromStr`]: a state no version of the journal writes is a
//! [`Corrupt`](crate::JournalErrorKind::Corrupt) error, never a panic. The stored texts are
//! the schema's: they never change.

use std::fmt;
use std::str::FromStr;

use sqlx::any::{Any, AnyTypeInfo};
use sqlx::encode::{Encode, IsNull};
use sqlx::error::BoxDynError;
use sqlx::{Database, Type};

use crate::error::JournalError;

/// Where a call id's row stands.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum CallStatus {
    /// A process runs it, under a lease.
    Running,
    /// It finished; its receipt is kept.
    Completed,
    /// It waits on a request.
    Suspended,
    /// It started and never finished: its outcome is unknown.
    Unknown,
    /// The host resolved it as never having run.
    Retry,
}

impl CallStatus {
    const ALL: [Self; 5] =
        [Self::Running, Self::Completed, Self::Suspended, Self::Unknown, Self::Retry];

    /// The text the `state` column holds.
    pub(crate) fn as_str(self) -> &'static str {
        match self {
            Self::Running => "running",
            Self::Completed => "completed",
            Self::Suspended => "suspended",
            Self::Unknown => "unknown",
            Self::Retry => "retry",
        }
    }
}

/// Where a suspended call's request stands.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum RequestStatus {
    /// Waiting for an answer.
    Pending,
    /// Answered, not yet resumed.
    Answered,
    /// Lapsed before an answer: declined.
    Expired,
    /// Its call is being resumed.
    Resuming,
    /// Its call ran with the answer.
    Resolved,
}

impl RequestStatus {
    const ALL: [Self; 5] =
        [Self::Pending, Self::Answered, Self::Expired, Self::Resuming, Self::Resolved];

    /// The text the `state` column holds.
    pub(crate) fn as_str(self) -> &'static str {
        match self {
            Self::Pending => "pending",
            Self::Answered => "answered",
            Self::Expired => "expired",
            Self::Resuming => "resuming",
            Self::Resolved => "resolved",
        }
    }
}

/// The status among `all` whose text is `text`, or the error for a `what` the journal never
/// writes.
fn parse<S: Copy>(
    all: &[S],
    as_str: fn(S) -> &'static str,
    text: &str,
    what: &str,
) -> Result<S, JournalError> {
    all.iter()
        .copied()
        .find(|status| as_str(*status) == text)
        .ok_or_else(|| JournalError::corrupt(what, format!("{text:?}")))
}

impl FromStr for CallStatus {
    type Err = JournalError;

    fn from_str(text: &str) -> Result<Self, JournalError> {
        parse(&Self::ALL, Self::as_str, text, "call state")
    }
}

impl FromStr for RequestStatus {
    type Err = JournalError;

    fn from_str(text: &str) -> Result<Self, JournalError> {
        parse(&Self::ALL, Self::as_str, text, "request state")
    }
}

/// Binds a status as the text its column holds.
macro_rules! text_column {
    ($status:ty) => {
        impl Type<Any> for $status {
            fn type_info() -> AnyTypeInfo {
                <str as Type<Any>>::type_info()
            }
        }

        impl<'q> Encode<'q, Any> for $status {
            fn encode_by_ref(
                &self,
                buf: &mut <Any as Database>::ArgumentBuffer<'q>,
            ) -> Result<IsNull, BoxDynError> {
                <&'q str as Encode<'q, Any>>::encode(self.as_str(), buf)
            }
        }

        impl fmt::Display for $status {
            fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str(self.as_str())
            }
        }
    };
}

text_column!(CallStatus);
text_column!(RequestStatus);

#[cfg(test)]
mod tests {
    use super::*;
    use crate::JournalErrorKind;

    #[test]
    fn an_unknown_state_is_corrupt_not_a_panic() {
        let outcome = "weird".parse::<CallStatus>();
        assert!(matches!(&outcome, Err(e) if e.kind() == JournalErrorKind::Corrupt), "{outcome:?}");
        let outcome = "weird".parse::<RequestStatus>();
        assert!(matches!(&outcome, Err(e) if e.kind() == JournalErrorKind::Corrupt), "{outcome:?}");
    }

    #[test]
    fn every_state_reads_back_as_itself() {
        for status in CallStatus::ALL {
            assert_eq!(status.as_str().parse::<CallStatus>().ok(), Some(status));
        }
        for status in RequestStatus::ALL {
            assert_eq!(status.as_str().parse::<RequestStatus>().ok(), Some(status));
        }
    }
}
