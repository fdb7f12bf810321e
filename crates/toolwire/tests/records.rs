//! The records read back equal to what was written, through JSON.

use std::time::{Duration, SystemTime, UNIX_EPOCH};

use proptest::prelude::*;
use serde::Serialize;
use serde::de::DeserializeOwned;
use serde_json::{Map, Value, json};
use toolwire::telemetry::TraceLink;
use toolwire::{Answer, CallId, FailureKind, InvocationId, Receipt, Request, ToolCall, ToolResult};

/// Any JSON value, up to a few levels deep, floats included.
fn any_json() -> impl Strategy<Value = Value> {
    let leaf = prop_oneof![
        Just(Value::Null),
        any::<bool>().prop_map(Value::from),
        any::<i64>().prop_map(Value::from),
        any::<u64>().prop_map(Value::from),
        any::<f64>().prop_filter("finite", |f| f.is_finite()).prop_map(Value::from),
        ".{0,12}".prop_map(Value::from),
    ];
    leaf.prop_recursive(4, 48, 6, |inner| {
        prop_oneof![
            prop::collection::vec(inner.clone(), 0..6).prop_map(Value::Array),
            prop::collection::btree_map(".{0,6}", inner, 0..6)
                .prop_map(|m| Value::Object(m.into_iter().collect::<Map<_, _>>())),
        ]
    })
}

fn any_request() -> impl Strategy<Value = Request> {
    (
        ".{0,8}",
        ".{0,20}",
        proptest::option::of(".{0,20}"),
        proptest::option::of(any_json()),
        proptest::option::of("[0-9T:Z-]{0,20}"),
        proptest::option::of("[0-9a-f]{64}"),
    )
        .prop_map(|(kind, prompt, url, data, expires_at, digest)| {
            let mut request = Request::new(kind, prompt);
            request.url = url;
            request.data = data;
            request.expires_at = expires_at;
            request.digest = digest;
            request
        })
}

fn any_kind() -> impl Strategy<Value = FailureKind> {
    prop::sample::select(vec![
        FailureKind::Aborted,
        FailureKind::TimedOut,
        FailureKind::InvalidInput,
        FailureKind::Denied,
        FailureKind::UnknownTool,
        FailureKind::Inactive,
        FailureKind::InvalidOutput,
        FailureKind::Handler,
        FailureKind::Panic,
        FailureKind::UnknownOutcome,
        FailureKind::InProgress,
    ])
}

/// Any result: a success, a failure of any kind, or a pending one.
fn any_result() -> impl Strategy<Value = ToolResult> {
    prop_oneof![
        (any_json(), ".{0,20}").prop_map(|(json, text)| ToolResult::ok(json, text)),
        any_json().prop_map(ToolResult::ok_json),
        (any_kind(), ".{0,20}").prop_map(|(kind, text)| ToolResult::failed(kind, text)),
        any_request().prop_map(ToolResult::pending),
    ]
}

fn any_receipt() -> impl Strategy<Value = Receipt> {
    (
        "[a-z_]{1,12}",
        proptest::option::of(".{0,12}"),
        0u64..4_000_000_000_000,
        0u32..1_000_000_000,
        any::<u64>(),
        any_result(),
        proptest::option::of(any::<([u8; 16], [u8; 8])>()),
    )
        .prop_map(|(tool, call_id, secs, nanos, duration, result, trace)| {
            let receipt = Receipt::new(tool, call_id.map(CallId::from), result)
                .with_started_at(UNIX_EPOCH + Duration::new(secs % 253_402_300_799, nanos))
                .with_duration(Duration::from_nanos(duration));
            match trace {
                Some((trace_id, span_id)) => receipt.with_trace(TraceLink::new(trace_id, span_id)),
                None => receipt,
            }
        })
}

fn any_call() -> impl Strategy<Value = ToolCall> {
    (".{0,10}", "[a-z_.]{0,12}", any_json(), proptest::option::of(".{0,20}")).prop_map(
        |(call_id, tool, arguments, malformed)| {
            let mut call = ToolCall::new(call_id, tool, arguments);
            call.malformed = malformed;
            call
        },
    )
}

fn round_trip<T: Serialize + DeserializeOwned>(value: &T) -> T {
    let text = serde_json::to_string(value).expect("serializes");
    serde_json::from_str(&text).unwrap_or_else(|e| panic!("reads back: {e}\n{text}"))
}

proptest! {
    #[test]
    fn receipts_read_back_equal_with_their_failure_kind(receipt in any_receipt()) {
        prop_assert_eq!(round_trip(&receipt), receipt);
    }

    #[test]
    fn tool_calls_read_back_equal(call in any_call()) {
        prop_assert_eq!(round_trip(&call), call);
    }

    #[test]
    fn requests_and_answers_read_back_equal(request in any_request(), data in any_json(), reason in ".{0,12}") {
        prop_assert_eq!(round_trip(&request), request.clone());
        let accept = Answer::accept(request.id.clone(), data);
        prop_assert_eq!(round_trip(&accept), accept);
        let decline = Answer::decline(request.id, reason);
        prop_assert_eq!(round_trip(&decline), decline);
    }

    #[test]
    fn results_read_back_equal_in_the_seeds_shape(result in any_result()) {
        let read: ToolResult = round_trip(&result);
        // The seeds' shape says whether a call failed, not why: a failure reads back as a
        // handler failure, and a receipt (above) keeps the exact kind.
        let expected = match result.failure_kind() {
            Some(FailureKind::Pending) | None => result.clone(),
            Some(_) => ToolResult::failed(FailureKind::Handler, result.text().unwrap_or_default()),
        };
        prop_assert_eq!(read, expected);
        let value = serde_json::to_value(&result).unwrap();
        // In key order whether or not serde_json keeps insertion order (a workspace build with
        // Cedar turns serde_json's `preserve_order` on).
        let mut keys: Vec<&String> = value.as_object().unwrap().keys().collect();
        keys.sort();
        prop_assert_eq!(keys, vec!["json", "success", "text"]);
    }

    #[test]
    fn call_ids_and_invocation_ids_read_back_equal(id in ".{0,20}") {
        let call_id = CallId::from(id.as_str());
        prop_assert_eq!(round_trip(&call_id), call_id.clone());
        prop_assert_eq!(serde_json::to_value(&call_id).unwrap(), json!(id));
        let invocation = InvocationId::new();
        prop_assert_eq!(round_trip(&invocation), invocation);
        prop_assert_eq!(invocation.to_string().parse::<InvocationId>().unwrap(), invocation);
    }
}

#[test]
fn failure_kinds_read_back_by_name() {
    for kind in [FailureKind::Denied, FailureKind::TimedOut, FailureKind::Pending] {
        let value = serde_json::to_value(kind).unwrap();
        assert_eq!(value, json!(kind.as_str()));
        assert_eq!(serde_json::from_value::<FailureKind>(value).unwrap(), kind);
    }
}

#[test]
fn a_receipt_serializes_its_failure_kind_beside_the_seeds_shape() {
    let result = ToolResult::failed(FailureKind::Denied, "no");
    let receipt = Receipt::new("deploy", Some(CallId::from("call_1")), result)
        .with_started_at(UNIX_EPOCH + Duration::new(1_795_003_199, 123_456_789))
        .with_duration(Duration::from_micros(1500));
    let value = serde_json::to_value(&receipt).unwrap();
    assert_eq!(value["failure"], "denied");
    assert_eq!(value["started_at"], "2026-11-18T11:59:59.123456789Z");
    assert_eq!(value["duration_ns"], 1_500_000);
    assert_eq!(value["result"], json!({"success": false, "json": null, "text": "no"}));
    let read: Receipt = serde_json::from_value(value).unwrap();
    assert_eq!(read.result.failure_kind(), Some(FailureKind::Denied));
}

#[test]
fn invocation_ids_are_ordered_by_time_and_unique_across_threads() {
    let before = SystemTime::now().duration_since(UNIX_EPOCH).unwrap().as_millis() as u64;
    let ids: Vec<InvocationId> = std::thread::scope(|scope| {
        let handles: Vec<_> = (0..4)
            .map(|_| scope.spawn(|| (0..2000).map(|_| InvocationId::new()).collect::<Vec<_>>()))
            .collect();
        handles.into_iter().flat_map(|h| h.join().unwrap()).collect()
    });
    let distinct: std::collections::HashSet<_> = ids.iter().collect();
    assert_eq!(distinct.len(), ids.len());
    assert!(ids.iter().all(|id| id.timestamp_millis() >= before));
    std::thread::sleep(Duration::from_millis(2));
    let later = InvocationId::new();
    assert!(ids.iter().all(|id| *id < later), "a later millisecond sorts after");
}

#[test]
fn invalid_invocation_ids_are_errors_that_say_why() {
    let wrong_version = "00000000-0000-4000-8000-000000000000".parse::<InvocationId>();
    assert!(wrong_version.unwrap_err().to_string().contains("version 4"));
    let not_uuid = "inv-1".parse::<InvocationId>().unwrap_err();
    assert!(not_uuid.to_string().starts_with("invalid invocation id: \"inv-1\""));
}

#[test]
fn regression_request_data_null_reads_back_as_present() {
    let request = Request::new("input", "which?").data(Value::Null);
    let read: Request = serde_json::from_value(serde_json::to_value(&request).unwrap()).unwrap();
    assert_eq!(read.data, Some(Value::Null));
    let absent: Request =
        serde_json::from_value(json!({"id": "r", "kind": "input", "prompt": "p"})).unwrap();
    assert_eq!(absent.data, None);
}

/// `Receipt` gained `trace`, and every struct literal of it downstream broke. The records
/// users build are `#[non_exhaustive]` now (a literal outside toolwire does not compile: see
/// the `compile_fail` examples of the `record` module), so each is built through its
/// constructor and setters, which a new field leaves as they are.
#[test]
fn regression_a_new_record_field_breaks_no_downstream_code() {
    let call = ToolCall::new("call_1", "deploy", json!({"env": "prod"}));
    let request = Request::new("approval", "Deploy to prod?").data(json!({"env": "prod"}));
    let answer = Answer::accept(request.id.clone(), json!({"sure": true}));
    let receipt = Receipt::never_ran(&call, ToolResult::pending(request.clone()))
        .with_started_at(UNIX_EPOCH + Duration::from_secs(1_800_000_000))
        .with_duration(Duration::from_millis(3))
        .with_trace(TraceLink::new([7; 16], [9; 8]));
    assert_eq!(round_trip(&call), call);
    assert_eq!(round_trip(&request), request);
    assert_eq!(round_trip(&answer), answer);
    assert_eq!(round_trip(&receipt), receipt);
    assert_eq!(receipt.call_id.as_deref(), Some("call_1"));

    let limits = toolwire::ArgumentLimits::DEFAULT.with_max_depth(4).with_max_bytes(1024);
    assert_eq!((limits.max_depth, limits.max_bytes), (4, 1024));
    let proposal = toolwire::Proposal::new("deploy", json!({"env": "prod"}));
    assert_eq!(round_trip(&proposal), proposal);
    let spent = toolwire::policy::SpentApproval::new(&answer.id, "0".repeat(64), SystemTime::now());
    assert_eq!(spent.id, answer.id);
    let lease = toolwire::tasks::TaskLease::new("process-a", SystemTime::now());
    let task =
        toolwire::tasks::TaskRecord::new("t1", "deploy", json!({}), "call_1", Duration::ZERO)
            .with_lease(lease)
            .with_host_answer(answer);
    assert_eq!(round_trip(&task), task);
}
