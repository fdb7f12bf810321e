//! [`PolicyRecord`]: what the policy step decided for one call, and which policies decided it.

use std::fmt;
use std::sync::Arc;

use serde::{Deserialize, Serialize};

use super::principal::Principal;

/// What the policy step of one call decided, as its [`Receipt`](crate::Receipt) records it:
/// the outcome, and the ids of the policies that decided it (empty for a policy that names
/// none, such as a closure). It serializes as
/// `{"outcome": "denied", "policies": ["no-prod"]}`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[non_exhaustive]
pub struct PolicyRecord {
    /// How the step ended.
    pub outcome: PolicyOutcome,
    /// The ids of the policies that decided, in the order the policy gave them.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub policies: Vec<Arc<str>>,
    /// Who gave the answer the call spent or was refused with, when the answer named them
    /// ([`Answer::by`](crate::Answer::by)).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub answered_by: Option<Principal>,
    /// When that answer was given, as an RFC 3339 UTC timestamp.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub answered_at: Option<String>,
}

impl PolicyRecord {
    /// The record of `outcome`, decided by `policies`.
    pub fn new(outcome: PolicyOutcome, policies: Vec<Arc<str>>) -> Self {
        Self { outcome, policies, answered_by: None, answered_at: None }
    }
}

/// How the policy step of a call ended.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
#[non_exhaustive]
pub enum PolicyOutcome {
    /// The call went on.
    Allowed,
    /// A policy denied it.
    Denied,
    /// It was parked for a human's answer.
    Asked,
    /// An answer approved it, checked against the call and spent.
    Approved,
    /// An answer was declined, forged, spent already, or made for another call.
    Refused,
}

impl PolicyOutcome {
    /// Its name, as the span's `toolwire.policy` and the receipt carry it.
    pub fn as_str(self) -> &'static str {
        match self {
            PolicyOutcome::Allowed => "allowed",
            PolicyOutcome::Denied => "denied",
            PolicyOutcome::Asked => "asked",
            PolicyOutcome::Approved => "approved",
            PolicyOutcome::Refused => "refused",
        }
    }
}

impl fmt::Display for PolicyOutcome {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}
