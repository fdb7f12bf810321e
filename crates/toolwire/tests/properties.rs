//! Property tests: no input, from names to schemas to arguments, panics the library.

use std::future::IntoFuture;

use proptest::prelude::*;
use serde_json::{Map, Value, json};
use toolwire::{DefineErrorKind, FailureKind, Tool, ToolResult};

/// Any JSON value, up to a few levels deep.
fn any_json() -> impl Strategy<Value = Value> {
    let leaf = prop_oneof![
        Just(Value::Null),
        any::<bool>().prop_map(Value::from),
        any::<i64>().prop_map(Value::from),
        any::<f64>().prop_filter("finite", |f| f.is_finite()).prop_map(Value::from),
        ".{0,12}".prop_map(Value::from),
    ];
    leaf.prop_recursive(4, 48, 6, |inner| {
        prop_oneof![
            prop::collection::vec(inner.clone(), 0..6).prop_map(Value::Array),
            prop::collection::btree_map("[a-z]{0,6}", inner, 0..6)
                .prop_map(|m| Value::Object(m.into_iter().collect::<Map<_, _>>())),
        ]
    })
}

/// Schema-like objects: real keywords with random values, nested.
fn schema_like() -> impl Strategy<Value = Value> {
    const KEYWORDS: &[&str] = &[
        "type",
        "properties",
        "required",
        "items",
        "minimum",
        "maximum",
        "enum",
        "const",
        "$ref",
        "$defs",
        "anyOf",
        "oneOf",
        "allOf",
        "not",
        "pattern",
        "format",
        "$schema",
        "$id",
        "additionalProperties",
        "minItems",
        "if",
        "then",
        "else",
        "multipleOf",
    ];
    let key = prop::sample::select(KEYWORDS).prop_map(str::to_owned);
    let leaf = prop_oneof![
        any_json(),
        prop::sample::select(
            &["object", "string", "#", "#/$defs/a", "http://x.invalid/s", "^(", "date-time"][..]
        )
        .prop_map(Value::from),
    ];
    leaf.prop_recursive(3, 32, 5, move |inner| {
        prop_oneof![
            prop::collection::vec(inner.clone(), 0..4).prop_map(Value::Array),
            prop::collection::btree_map(key.clone(), inner, 0..5)
                .prop_map(|m| Value::Object(m.into_iter().collect::<Map<_, _>>())),
        ]
    })
}

fn typed_tool() -> Tool {
    Tool::define("typed")
        .parameters(json!({
            "type": "object",
            "properties": {
                "city": {"type": "string", "minLength": 1},
                "days": {"type": "integer", "minimum": 1, "maximum": 7},
                "tags": {"type": "array", "items": {"type": "string"}}
            },
            "required": ["city"],
            "additionalProperties": false
        }))
        .execute_sync(|args: Value, _| ToolResult::ok(args, "ran"))
        .build()
        .unwrap()
}

fn runtime() -> tokio::runtime::Runtime {
    tokio::runtime::Builder::new_current_thread().enable_time().build().unwrap()
}

proptest! {
    #[test]
    fn random_arguments_never_panic(args in any_json()) {
        let rt = runtime();
        let result = rt.block_on(typed_tool().execute(args).into_future());
        match result.failure_kind() {
            None => prop_assert_eq!(result.text(), Some("ran")),
            Some(kind) => {
                prop_assert_eq!(kind, FailureKind::InvalidInput);
                prop_assert!(result.text().unwrap().starts_with("invalid arguments for \"typed\": "));
            }
        }
    }

    #[test]
    fn valid_arguments_always_reach_the_handler(
        city in ".{1,20}",
        days in proptest::option::of(1i64..=7),
        tags in proptest::option::of(prop::collection::vec(".{0,5}", 0..4)),
    ) {
        let mut args = json!({"city": city});
        if let Some(days) = days { args["days"] = json!(days); }
        if let Some(tags) = tags { args["tags"] = json!(tags); }
        let result = runtime().block_on(typed_tool().execute(args.clone()).into_future());
        prop_assert_eq!(result.text(), Some("ran"));
        prop_assert_eq!(result.json(), &args);
    }

    #[test]
    fn random_names_never_panic_and_follow_the_pattern(name in ".{0,70}") {
        let built = Tool::define(name.clone()).execute_sync(|_, _| ToolResult::failure("")).build();
        let valid = !name.is_empty()
            && name.len() <= 64
            && name.chars().all(|c| c.is_ascii_alphanumeric() || c == '_' || c == '-');
        match built {
            Ok(tool) => { prop_assert!(valid); prop_assert_eq!(tool.name(), name.as_str()); }
            Err(err) => { prop_assert!(!valid); prop_assert_eq!(err.kind(), DefineErrorKind::InvalidName); }
        }
    }

    #[test]
    fn random_parameter_schemas_never_panic(schema in prop_oneof![any_json(), schema_like()], object_root in any::<bool>()) {
        let schema = match (object_root, schema) {
            (true, Value::Object(mut map)) => { map.insert("type".into(), json!("object")); Value::Object(map) }
            (_, other) => other,
        };
        let built = Tool::define("t").parameters(schema).execute_sync(|_, _| ToolResult::failure("")).build();
        if let Err(err) = built {
            prop_assert_eq!(err.kind(), DefineErrorKind::InvalidParameters);
            prop_assert!(err.to_string().starts_with("invalid parameters for tool \"t\": "));
        }
    }

    #[test]
    fn any_buildable_schema_with_any_arguments_never_panics(
        mut schema in schema_like(),
        args in any_json(),
    ) {
        if let Value::Object(map) = &mut schema {
            map.insert("type".into(), json!("object"));
        }
        let Ok(tool) = Tool::define("t")
            .parameters(schema)
            .execute_sync(|_, _| ToolResult::ok(json!({}), "ran"))
            .build() else { return Ok(()) };
        let result = runtime().block_on(tool.execute(args).into_future());
        prop_assert!(matches!(result.failure_kind(), None | Some(FailureKind::InvalidInput)));
    }

    #[test]
    fn random_calls_through_a_registry_never_panic(
        name in prop_oneof![Just("typed".to_owned()), Just("guarded".to_owned()), "[a-z_]{0,10}"],
        args in any_json(),
    ) {
        let registry = registry_of_hooked_tools();
        let receipt = runtime().block_on(registry.invoke(&name, args).call_id("c").into_future());
        prop_assert_eq!(&*receipt.tool, name.as_str());
        prop_assert_eq!(receipt.call_id.as_deref(), Some("c"));
        let kind = receipt.result.failure_kind();
        let expected = match name.as_str() {
            "typed" => matches!(kind, None | Some(FailureKind::InvalidInput)),
            "guarded" => matches!(kind, Some(FailureKind::Denied) | Some(FailureKind::InvalidInput)),
            _ => kind == Some(FailureKind::UnknownTool),
        };
        prop_assert!(expected, "{:?}", receipt.result);
    }

    #[test]
    fn valid_input_always_reaches_the_handler_through_a_registry(city in ".{1,20}", days in 1i64..=7) {
        let registry = registry_of_hooked_tools();
        let args = json!({"city": city, "days": days});
        let receipt = runtime().block_on(registry.invoke("typed", args.clone()).into_future());
        prop_assert_eq!(receipt.result.json(), &args);
    }
}

/// `typed` from above, and `guarded`, which parses its input and denies every call.
fn registry_of_hooked_tools() -> toolwire::Registry {
    let guarded = Tool::define("guarded")
        .parse_input(|args: Value| {
            if args.as_object().is_some_and(|m| m.len() < 3) {
                Ok(args)
            } else {
                Err("too many keys")
            }
        })
        .authorize_sync(|_, _| Err::<(), _>("nobody may"))
        .execute_sync(|_, _| ToolResult::ok(json!({}), "never"))
        .build()
        .unwrap();
    toolwire::Registry::builder().register(typed_tool()).register(guarded).seal().unwrap()
}

mod names {
    use proptest::prelude::*;
    use toolwire::provider::names::{MAX_PROVIDER_NAME, NameMapper, is_provider_safe};

    /// Names as MCP servers and careless hosts make them: dots, spaces, accents, emoji, long.
    fn any_name() -> impl Strategy<Value = String> {
        prop_oneof![
            "[a-zA-Z0-9_-]{1,64}",
            "[a-z]{1,10}(\\.[a-z]{1,10}){1,4}",
            ".{0,130}",
            "[a-z_]{60,70}",
        ]
    }

    proptest! {
        #[test]
        fn every_mapped_name_is_safe_unique_and_maps_back(names in prop::collection::vec(any_name(), 1..40)) {
            let mapper = NameMapper::new(names.iter().map(String::as_str));
            let mut seen = std::collections::HashSet::new();
            for name in &names {
                let safe = mapper.provider_name(name).unwrap();
                prop_assert!(is_provider_safe(safe), "{safe:?}");
                prop_assert!(safe.len() <= MAX_PROVIDER_NAME);
                prop_assert_eq!(mapper.original_name(safe), Some(name.as_str()));
                if is_provider_safe(name) {
                    prop_assert_eq!(safe, name.as_str(), "safe names keep themselves");
                }
                seen.insert((name.clone(), safe.to_owned()));
            }
            let providers: std::collections::HashSet<_> = seen.iter().map(|(_, p)| p).collect();
            prop_assert_eq!(providers.len(), seen.len(), "no two names share a provider name");
        }

        #[test]
        fn a_name_maps_the_same_whatever_else_is_mapped(name in any_name(), others in prop::collection::vec("[a-z.]{1,20}", 0..10)) {
            let alone = NameMapper::new([name.as_str()]);
            let crowded = NameMapper::new(others.iter().map(String::as_str).chain([name.as_str()]));
            prop_assume!(!others.contains(&name));
            prop_assert_eq!(alone.provider_name(&name), crowded.provider_name(&name));
        }
    }
}
