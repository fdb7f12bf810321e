//! Bad input never panics the library: null, wrong types, huge and deep arguments.

use serde_json::{Value, json};
use toolwire::{ArgumentLimits, FailureKind, Tool, ToolResult};

fn echo(parameters: Option<Value>) -> Tool {
    let builder = Tool::define("echo");
    let builder = match parameters {
        Some(p) => builder.parameters(p),
        None => builder,
    };
    builder.execute_sync(|args: Value, _| ToolResult::ok(args, "echo")).build().unwrap()
}

#[tokio::test]
async fn null_arguments_are_treated_as_an_empty_object() {
    let result = echo(None).execute(Value::Null).await;
    assert_eq!(result.json(), &json!({}));
}

#[tokio::test]
async fn non_object_arguments_are_invalid_input_naming_the_type() {
    for (args, found) in [
        (json!([1, 2]), "[1,2] is not of type \"object\""),
        (json!("text"), "\"text\" is not of type \"object\""),
        (json!(7), "7 is not of type \"object\""),
        (json!(true), "true is not of type \"object\""),
    ] {
        let result = echo(None).execute(args.clone()).await;
        assert_eq!(result.failure_kind(), Some(FailureKind::InvalidInput), "{args}");
        let text = result.text().unwrap();
        assert_eq!(text, format!("invalid arguments for \"echo\": (root): {found}"));
    }
}

/// `levels` nested arrays around a zero, built without recursion.
fn nested(levels: usize) -> Value {
    let mut deep = json!(0);
    for _ in 0..levels {
        deep = Value::Array(vec![deep]);
    }
    deep
}

/// `{"deep": value}`, without the `json!` macro, which would serialize `value` recursively.
fn wrap(value: Value) -> Value {
    Value::Object([("deep".to_owned(), value)].into_iter().collect())
}

#[tokio::test]
async fn deeply_nested_arguments_do_not_overflow_the_stack() {
    // 100,000 levels: validating, printing or even dropping this recursively would overflow
    // the stack. The library rejects it and tears it down without recursion.
    let result = echo(None).execute(wrap(nested(100_000))).await;
    assert_eq!(result.failure_kind(), Some(FailureKind::InvalidInput));
    let text = result.text().unwrap();
    assert!(text.starts_with("invalid arguments for \"echo\": /deep/0/0/"), "{text}");
    assert!(text.ends_with(": nested deeper than 64 levels"), "{text}");
}

#[tokio::test]
async fn nesting_up_to_the_limit_is_accepted_and_the_limit_is_configurable() {
    // The arguments object is level 1, so 63 arrays inside it reach level 64.
    let result = echo(None).execute(wrap(nested(63))).await;
    assert!(result.is_success(), "{result:?}");
    let result = echo(None).execute(wrap(nested(64))).await;
    assert_eq!(result.failure_kind(), Some(FailureKind::InvalidInput));

    let shallow = Tool::define("shallow")
        .limits(ArgumentLimits::DEFAULT.with_max_depth(2))
        .execute_sync(|args: Value, _| ToolResult::ok(args, "ok"))
        .build()
        .unwrap();
    assert!(shallow.execute(json!({"a": [1]})).await.is_success());
    let result = shallow.execute(json!({"a": {"b/c": [1]}})).await;
    assert_eq!(
        result.text(),
        Some("invalid arguments for \"shallow\": /a/b~1c: nested deeper than 2 levels")
    );
    assert_eq!(shallow.limits().max_depth, 2);
}

#[tokio::test]
async fn arguments_over_the_size_limit_are_rejected() {
    let big = "x".repeat(ArgumentLimits::DEFAULT.max_bytes);
    let result = echo(None).execute(json!({"blob": big})).await;
    assert_eq!(
        result.text(),
        Some("invalid arguments for \"echo\": /blob: arguments are larger than 1048576 bytes")
    );
    let small = Tool::define("small")
        .limits(ArgumentLimits::DEFAULT.with_max_bytes(64))
        .execute_sync(|args: Value, _| ToolResult::ok(args, "ok"))
        .build()
        .unwrap();
    assert!(small.execute(json!({"a": "short"})).await.is_success());
    let items: Vec<Value> = (0..40).map(|i| json!(i)).collect();
    let result = small.execute(json!({"a": items})).await;
    assert!(result.text().unwrap().contains("larger than 64 bytes"), "{result:?}");
}

#[tokio::test]
async fn huge_arguments_get_a_short_error() {
    let huge = "x".repeat(512 * 1024);
    let tool = echo(Some(json!({
        "type": "object",
        "properties": {"blob": {"type": "integer"}}
    })));
    let result = tool.execute(json!({"blob": huge})).await;
    assert_eq!(result.failure_kind(), Some(FailureKind::InvalidInput));
    let text = result.text().unwrap();
    assert!(text.len() < 1000, "the message quotes a clip of the value, not all of it");
    assert!(text.contains("bytes in all"), "{text}");
}

#[tokio::test]
async fn many_violations_are_listed_up_to_a_limit() {
    let properties: serde_json::Map<String, Value> =
        (0..30).map(|i| (format!("f{i}"), json!({"type": "string"}))).collect();
    let args: serde_json::Map<String, Value> =
        (0..30).map(|i| (format!("f{i}"), json!(i))).collect();
    let tool = echo(Some(json!({"type": "object", "properties": properties})));
    let result = tool.execute(Value::Object(args)).await;
    let text = result.text().unwrap();
    assert_eq!(text.lines().count(), 21, "{text}");
    assert!(text.ends_with("(more violations not shown)"));
}

#[tokio::test]
async fn deep_arguments_are_dropped_safely_when_pre_aborted_or_never_polled() {
    let controller = toolwire::AbortController::new();
    controller.abort();
    let call = echo(None).execute(wrap(nested(100_000)));
    let result = call.signal(controller.signal()).await;
    assert!(result.is_aborted());
    // A call that is turned into a future and dropped unpolled.
    drop(std::future::IntoFuture::into_future(echo(None).execute(wrap(nested(100_000)))));
}

#[test]
fn deep_schemas_and_examples_are_setup_errors_not_stack_overflows() {
    let mut schema = json!({"type": "string"});
    for _ in 0..100_000 {
        schema = Value::Object([("items".to_owned(), schema)].into_iter().collect());
    }
    let schema = Value::Object(
        [("type".to_owned(), json!("object")), ("properties".to_owned(), wrap(schema))]
            .into_iter()
            .collect(),
    );
    let noop = |_: Value, _| ToolResult::failure("");
    let err = Tool::define("deep").parameters(schema).execute_sync(noop).build().unwrap_err();
    assert!(err.is_invalid_parameters());
    assert!(err.to_string().contains("nested deeper than 128 levels"), "{err}");

    let err = Tool::define("deep_example")
        .input_examples(vec![json!({}), wrap(nested(100_000))])
        .execute_sync(noop)
        .build()
        .unwrap_err();
    assert_eq!(err.kind(), toolwire::DefineErrorKind::InvalidExample);
    assert!(err.to_string().contains("example 1: /deep/0/"), "{err}");
}

#[test]
fn a_schema_nested_near_its_limit_still_builds() {
    // 60 levels of object schemas is 121 levels of JSON, under the 128 allowed.
    let mut schema = json!({"type": "string"});
    for _ in 0..60 {
        schema = json!({"type": "object", "properties": {"x": schema}});
    }
    let tool = Tool::define("nested_ok")
        .parameters(schema)
        .execute_sync(|args: Value, _| ToolResult::ok(args, "ok"));
    assert!(tool.build().is_ok());
}
