//! [`Receipt`]: the record of one invocation.

use std::sync::Arc;
use std::time::{Duration, SystemTime, UNIX_EPOCH};

use serde::de::Error as _;
use serde::{Deserialize, Deserializer, Serialize, Serializer};

use super::call::CallId;
use super::id::InvocationId;
use super::principal::Principal;
use super::result::{FailureKind, ToolResult};
use super::ruling::PolicyRecord;
use crate::telemetry::TraceLink;

/// What happened in one invocation through a [`Registry`](crate::Registry).
///
/// It serializes as
/// `{"invocation_id", "tool", "call_id", "started_at", "duration_ns", "failure", "result"}`:
/// `started_at` is an RFC 3339 UTC timestamp with nanoseconds, `duration_ns` a whole number of
/// nanoseconds, `failure` the [`FailureKind`] of a failed call (`null` for a success), and
/// `result` the [`ToolResult`] in the seeds' shape, as the model sees it; a receipt linked to
/// its span adds `"trace": {"trace_id", "span_id"}`, a call with a known caller adds
/// `"principal": {"kind", "name"}`, and a call that passed a policy step adds
/// `"policy": {"outcome", "policies"}`. It reads back equal.
///
/// A registry makes the receipts of the calls it runs; a host that records a call of its own
/// builds one with [`new`](Self::new) and the `with_*` setters (the struct is
/// `#[non_exhaustive]`, so that a new field is no breaking change):
///
/// ```
/// use std::time::{Duration, UNIX_EPOCH};
/// use serde_json::json;
/// use toolwire::telemetry::TraceLink;
/// use toolwire::{CallId, InvocationId, Receipt, ToolResult};
///
/// let id = InvocationId::new();
/// let result = ToolResult::ok(json!(21), "21 degrees");
/// let receipt = Receipt::new("get_weather", Some(CallId::from("call_1")), result)
///     .with_invocation_id(id)
///     .with_started_at(UNIX_EPOCH + Duration::from_secs(1_700_000_000))
///     .with_duration(Duration::from_millis(40))
///     .with_trace(TraceLink::new([1; 16], [2; 8]));
/// assert_eq!(receipt.invocation_id, id);
/// assert_eq!(receipt.duration, Duration::from_millis(40));
/// assert!(receipt.trace.is_some());
/// ```
#[derive(Debug, Clone, PartialEq)]
#[non_exhaustive]
pub struct Receipt {
    /// Unique per invocation; the same id the handler saw in its context.
    pub invocation_id: InvocationId,
    /// The name that was called, whether or not a tool has it; the same field as
    /// [`ToolCall::tool`](crate::ToolCall::tool).
    pub tool: Arc<str>,
    /// The model's id for the call, if one was given.
    pub call_id: Option<CallId>,
    /// When the invocation started.
    pub started_at: SystemTime,
    /// How long it took, from its first poll to its result.
    pub duration: Duration,
    /// What the model reads.
    pub result: ToolResult,
    /// The trace and span of the invocation's `execute_tool` span, when an exporter linked
    /// it (see [`telemetry::link_receipts`](crate::telemetry::link_receipts)); boxed, so a
    /// receipt without one stays small.
    pub trace: Option<Box<TraceLink>>,
    /// Who made the call, when the host said (see
    /// [`CallOptions::principal`](crate::CallOptions::principal)).
    pub principal: Option<Principal>,
    /// What the registry's policy step decided, and which policies decided it; `None` when
    /// the step had nothing to do (no policy, no approval rule, no answer).
    pub policy: Option<Box<PolicyRecord>>,
}

impl Receipt {
    /// The receipt of `tool`'s call `call_id` with `result`: a fresh invocation id, started
    /// now, taking no time, linked to no span; the `with_*` setters change each.
    pub fn new(tool: impl Into<Arc<str>>, call_id: Option<CallId>, result: ToolResult) -> Self {
        Self {
            invocation_id: InvocationId::new(),
            tool: tool.into(),
            call_id,
            started_at: SystemTime::now(),
            duration: Duration::ZERO,
            result,
            trace: None,
            principal: None,
            policy: None,
        }
    }

    /// With `invocation_id` for its id.
    pub fn with_invocation_id(mut self, invocation_id: InvocationId) -> Self {
        self.invocation_id = invocation_id;
        self
    }

    /// Started at `started_at`.
    pub fn with_started_at(mut self, started_at: SystemTime) -> Self {
        self.started_at = started_at;
        self
    }

    /// Taking `duration`.
    pub fn with_duration(mut self, duration: Duration) -> Self {
        self.duration = duration;
        self
    }

    /// Linked to the span `trace`.
    pub fn with_trace(mut self, trace: TraceLink) -> Self {
        self.trace = Some(Box::new(trace));
        self
    }

    /// Made by `principal`.
    pub fn with_principal(mut self, principal: Principal) -> Self {
        self.principal = Some(principal);
        self
    }

    /// With the policy step's `record`.
    pub fn with_policy(mut self, record: PolicyRecord) -> Self {
        self.policy = Some(Box::new(record));
        self
    }

    /// The receipt of a call that never ran: refused or lost before it reached a registry
    /// (a cap on calls per turn, a task that died, a journal's own refusal), with a fresh
    /// invocation id, started now, taking no time.
    ///
    /// ```
    /// use serde_json::json;
    /// use toolwire::{FailureKind, Receipt, ToolCall, ToolResult};
    ///
    /// let call = ToolCall::new("c7", "deploy", json!({}));
    /// let refused = ToolResult::failed(FailureKind::Denied, "too many calls in one turn");
    /// let receipt = Receipt::never_ran(&call, refused);
    /// assert_eq!(receipt.call_id.as_deref(), Some("c7"));
    /// assert_eq!(receipt.duration, std::time::Duration::ZERO);
    /// ```
    pub fn never_ran(call: &super::call::ToolCall, result: ToolResult) -> Self {
        let call_id = (!call.call_id.is_empty()).then(|| call.call_id.clone());
        Self::unrun(Arc::clone(&call.tool), call_id, result)
    }

    /// [`never_ran`](Self::never_ran), for a call known by its tool's name and call id only:
    /// the same as [`new`](Self::new).
    pub fn unrun(tool: impl Into<Arc<str>>, call_id: Option<CallId>, result: ToolResult) -> Self {
        Self::new(tool, call_id, result)
    }
}

/// The serialized form of a receipt.
#[derive(Serialize, Deserialize)]
struct Wire<R> {
    invocation_id: InvocationId,
    tool: Arc<str>,
    call_id: Option<CallId>,
    started_at: String,
    duration_ns: u64,
    failure: Option<FailureKind>,
    result: R,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    trace: Option<Box<TraceLink>>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    principal: Option<Principal>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    policy: Option<Box<PolicyRecord>>,
}

impl Serialize for Receipt {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        Wire {
            invocation_id: self.invocation_id,
            tool: Arc::clone(&self.tool),
            call_id: self.call_id.clone(),
            started_at: rfc3339(self.started_at),
            duration_ns: u64::try_from(self.duration.as_nanos()).unwrap_or(u64::MAX),
            failure: self.result.failure_kind(),
            result: &self.result,
            trace: self.trace.clone(),
            principal: self.principal.clone(),
            policy: self.policy.clone(),
        }
        .serialize(serializer)
    }
}

impl<'de> Deserialize<'de> for Receipt {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        let wire = Wire::<ToolResult>::deserialize(deserializer)?;
        let started_at = humantime::parse_rfc3339(&wire.started_at)
            .map_err(|e| D::Error::custom(format!("started_at: {e}")))?;
        let result = wire.result.with_failure_kind(wire.failure);
        Ok(Receipt {
            invocation_id: wire.invocation_id,
            tool: wire.tool,
            call_id: wire.call_id,
            started_at,
            duration: Duration::from_nanos(wire.duration_ns),
            result,
            trace: wire.trace,
            principal: wire.principal,
            policy: wire.policy,
        })
    }
}

/// `time` in RFC 3339 with nanoseconds; times outside 1970 to 9999 are written as the nearest
/// of those.
fn rfc3339(time: SystemTime) -> String {
    const LAST_SECOND: u64 = 253_402_300_799; // 9999-12-31T23:59:59Z
    let since = time.duration_since(UNIX_EPOCH).unwrap_or_default();
    let since = since.min(Duration::new(LAST_SECOND, 999_999_999));
    humantime::format_rfc3339_nanos(UNIX_EPOCH + since).to_string()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn formats_known_instants() {
        assert_eq!(rfc3339(UNIX_EPOCH), "1970-01-01T00:00:00.000000000Z");
        let leap = UNIX_EPOCH + Duration::from_millis(951_782_400_123); // 2000-02-29
        assert_eq!(rfc3339(leap), "2000-02-29T00:00:00.123000000Z");
        let before = UNIX_EPOCH - Duration::from_secs(10);
        assert_eq!(rfc3339(before), "1970-01-01T00:00:00.000000000Z");
    }
}
