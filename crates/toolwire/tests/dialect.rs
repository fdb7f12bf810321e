//! Per-provider schema dialects: the rules each output satisfies, the change report, and the
//! errors for what a dialect cannot express.

use proptest::prelude::*;
use schemars::JsonSchema;
use serde_json::{Map, Value, json};
use toolwire::dialect::{Dialect, compile};
use toolwire::typed::parameters_of;

/// Every way OpenAI's strict mode could be violated, found in `schema`, with paths.
fn strict_violations(schema: &Value, path: &str, out: &mut Vec<String>) {
    let Value::Object(map) = schema else { return };
    const ALLOWED: &[&str] = &[
        "type",
        "properties",
        "required",
        "additionalProperties",
        "items",
        "anyOf",
        "enum",
        "const",
        "description",
        "title",
        "$ref",
        "$defs",
        "definitions",
        "pattern",
        "format",
        "multipleOf",
        "maximum",
        "exclusiveMaximum",
        "minimum",
        "exclusiveMinimum",
        "minItems",
        "maxItems",
    ];
    for key in map.keys() {
        if !ALLOWED.contains(&key.as_str()) {
            out.push(format!("{path}: keyword {key}"));
        }
    }
    let is_object = map.get("type") == Some(&json!("object")) || map.contains_key("properties");
    if is_object {
        if map.get("additionalProperties") != Some(&json!(false)) {
            out.push(format!("{path}: open object"));
        }
        let properties =
            map.get("properties").and_then(Value::as_object).cloned().unwrap_or_default();
        let required: Vec<&str> = map
            .get("required")
            .and_then(Value::as_array)
            .into_iter()
            .flatten()
            .filter_map(Value::as_str)
            .collect();
        for name in properties.keys() {
            if !required.contains(&name.as_str()) {
                out.push(format!("{path}: {name} not required"));
            }
        }
    }
    if map.contains_key("$ref") && map.len() > 1 {
        out.push(format!("{path}: $ref with siblings"));
    }
    for (key, value) in map {
        match (key.as_str(), value) {
            ("properties" | "$defs" | "definitions", Value::Object(children)) => {
                for (name, child) in children {
                    strict_violations(child, &format!("{path}/{key}/{name}"), out);
                }
            }
            ("anyOf", Value::Array(children)) => {
                for (i, child) in children.iter().enumerate() {
                    strict_violations(child, &format!("{path}/anyOf/{i}"), out);
                }
            }
            ("items" | "additionalProperties", child @ Value::Object(_)) => {
                strict_violations(child, &format!("{path}/{key}"), out)
            }
            _ => {}
        }
    }
}

fn assert_strict(schema: &Value) {
    let compiled = compile(schema, Dialect::OpenAiStrict).unwrap();
    let mut violations = Vec::new();
    strict_violations(&compiled.schema, "", &mut violations);
    assert!(violations.is_empty(), "{violations:#?}\n{:#}", compiled.schema);
    // Compiling again changes nothing: the output is a fixed point.
    let again = compile(&compiled.schema, Dialect::OpenAiStrict).unwrap();
    assert_eq!(again.schema, compiled.schema);
    assert!(again.changes.is_empty(), "{:#?}", again.changes);
}

#[expect(dead_code, reason = "only its schema is used")]
#[derive(JsonSchema)]
enum Shape {
    /// A circle.
    Circle {
        radius: f64,
    },
    Square(f64),
    Dot,
}

#[expect(dead_code, reason = "only its schema is used")]
#[derive(JsonSchema)]
struct Inner {
    /// A label.
    label: Option<String>,
    tags: Vec<Option<String>>,
}

#[expect(dead_code, reason = "only its schema is used")]
#[derive(JsonSchema)]
struct Outer {
    /// The inner part, documented, so its `$ref` has a sibling.
    inner: Inner,
    maybe: Option<Inner>,
    shapes: Vec<Shape>,
    #[schemars(length(min = 1, max = 10))]
    name: String,
}

/// A recursive type.
#[expect(dead_code, reason = "only its schema is used")]
#[derive(JsonSchema)]
struct Node {
    /// The node's value.
    value: i64,
    /// Its children.
    children: Vec<Node>,
    /// Its parent, if any.
    parent: Option<Box<Node>>,
}

#[test]
fn openai_strict_output_follows_the_rules_for_derived_types() {
    for schema in [parameters_of::<Outer>(), parameters_of::<Inner>(), parameters_of::<Node>()] {
        assert_strict(&schema);
    }
}

#[test]
fn openai_strict_reports_what_it_changed() {
    let schema = json!({
        "type": "object",
        "properties": {
            "city": {"type": "string", "minLength": 1, "description": "The city"},
            "unit": {"type": "string", "enum": ["c", "f"]},
            "when": {"type": "string", "format": "iso-week"},
            "pick": {"oneOf": [{"type": "string"}, {"type": "integer"}]}
        },
        "required": ["city", "pick"]
    });
    let compiled = compile(&schema, Dialect::OpenAiStrict).unwrap();
    let report: Vec<String> = compiled.changes.iter().map(ToString::to_string).collect();
    assert!(report.contains(&"/properties/city: removed the unsupported keyword `minLength` (1); kept in the description".to_owned()), "{report:#?}");
    assert!(
        report.contains(&"/properties/when: removed the unsupported format `iso-week`".to_owned()),
        "{report:#?}"
    );
    assert!(report.contains(&"/properties/pick: `oneOf` became `anyOf`".to_owned()), "{report:#?}");
    assert!(
        report
            .contains(&"/properties/unit: optional property made required and nullable".to_owned()),
        "{report:#?}"
    );
    assert!(
        report.contains(&"(root): set `additionalProperties: false`".to_owned()),
        "{report:#?}"
    );
    let props = &compiled.schema["properties"];
    assert_eq!(props["city"]["description"], "The city (minLength: 1)");
    assert_eq!(props["unit"]["enum"], json!(["c", "f", null]));
    assert_eq!(props["unit"]["type"], json!(["string", "null"]));
}

#[test]
fn what_strict_mode_cannot_express_is_an_error_naming_the_path() {
    let not_object = compile(&json!({"type": "string"}), Dialect::OpenAiStrict).unwrap_err();
    assert_eq!(
        not_object.to_string(),
        "cannot express the schema for OpenAiStrict: /type: the root must be an object schema"
    );
    let mut deep = json!({"type": "object", "properties": {}});
    for _ in 0..11 {
        deep = json!({"type": "object", "properties": {"x": deep}});
    }
    let error = compile(&deep, Dialect::OpenAiStrict).unwrap_err();
    assert!(error.to_string().contains("12 levels of object nesting; the limit is 10"), "{error}");
    let values: Vec<Value> = (0..1001).map(|i| json!(format!("v{i}"))).collect();
    let wide = json!({"type": "object", "properties": {"e": {"type": "string", "enum": values}}});
    let error = compile(&wide, Dialect::OpenAiStrict).unwrap_err();
    assert!(error.to_string().contains("enum values in all; the limit is 1000"), "{error}");
}

#[test]
fn gemini_parameters_use_the_openapi_subset() {
    let compiled = compile(&parameters_of::<Outer>(), Dialect::Gemini).unwrap();
    let text = compiled.schema.to_string();
    for banned in [
        "\"$ref\":",
        "\"$defs\":",
        "\"$schema\":",
        "\"additionalProperties\":",
        "\"oneOf\":",
        "\"null\"",
    ] {
        assert!(!text.contains(banned), "{banned} in {text}");
    }
    let props = &compiled.schema["properties"];
    assert_eq!(compiled.schema["type"], "OBJECT");
    assert_eq!(props["name"]["type"], "STRING");
    assert_eq!(props["maybe"]["nullable"], true);
    assert_eq!(props["inner"]["properties"]["label"]["type"], "STRING");
    assert_eq!(props["inner"]["properties"]["label"]["nullable"], true);
    assert_eq!(props["inner"]["properties"]["tags"]["items"]["nullable"], true);
    assert!(!compiled.changes.is_empty());

    let recursive = compile(&parameters_of::<Node>(), Dialect::Gemini).unwrap_err();
    assert!(
        recursive.to_string().contains(
            "is recursive, which `parameters` cannot express; use `parametersJsonSchema`"
        ),
        "{recursive}"
    );

    let constant =
        compile(&json!({"type": "object", "properties": {"k": {"const": "x"}}}), Dialect::Gemini)
            .unwrap();
    assert_eq!(constant.schema["properties"]["k"]["enum"], json!(["x"]));
}

#[test]
fn anthropic_strict_closes_objects_and_keeps_its_subset() {
    let schema = json!({
        "type": "object",
        "properties": {"list": {"type": "array", "minItems": 2, "items": {"type": "string", "maxLength": 4}}}
    });
    let compiled = compile(&schema, Dialect::AnthropicStrict).unwrap();
    assert_eq!(compiled.schema["additionalProperties"], false);
    assert!(compiled.schema["properties"]["list"].get("minItems").is_none());
    assert!(compiled.schema["properties"]["list"]["items"].get("maxLength").is_none());
    let plain = compile(&schema, Dialect::Anthropic).unwrap();
    assert_eq!(plain.schema, schema);
    assert!(plain.changes.is_empty());
}

#[test]
fn mcp_takes_any_object_schema_as_it_is() {
    let schema = parameters_of::<Outer>();
    let compiled = compile(&schema, Dialect::Mcp).unwrap();
    assert_eq!(compiled.schema, schema);
    assert!(compile(&json!({"type": "array"}), Dialect::Mcp).is_err());
}

/// Schema-like objects: real keywords with random values, nested, object root.
fn schema_like() -> impl Strategy<Value = Value> {
    const KEYWORDS: &[&str] = &[
        "type",
        "properties",
        "required",
        "items",
        "minimum",
        "enum",
        "const",
        "anyOf",
        "oneOf",
        "allOf",
        "not",
        "pattern",
        "format",
        "additionalProperties",
        "minItems",
        "description",
    ];
    let leaf = prop_oneof![
        Just(json!({"type": "string"})),
        Just(json!({"type": "integer", "minimum": 0})),
        Just(json!({"type": ["number", "null"]})),
        Just(json!({"enum": ["a", "b"]})),
        Just(json!(true)),
        Just(json!({"type": "string", "format": "email", "maxLength": 9})),
    ];
    leaf.prop_recursive(4, 40, 5, |inner| {
        prop_oneof![
            prop::collection::btree_map("[a-z]{1,6}", inner.clone(), 0..5).prop_map(|props| {
                let props: Map<String, Value> = props.into_iter().collect();
                let first: Vec<Value> = props.keys().take(1).map(|k| json!(k)).collect();
                json!({"type": "object", "properties": props, "required": first})
            }),
            inner.clone().prop_map(|item| json!({"type": "array", "items": item, "minItems": 2})),
            prop::collection::vec(inner.clone(), 1..3)
                .prop_map(|branches| json!({"oneOf": branches})),
            (prop::sample::select(KEYWORDS), inner)
                .prop_map(|(key, value)| json!({"type": "object", key: value})),
        ]
    })
}

proptest! {
    #[test]
    fn every_dialect_handles_random_schemas_without_panicking(
        properties in prop::collection::btree_map("[a-z]{1,6}", schema_like(), 0..6),
    ) {
        let props: Map<String, Value> = properties.into_iter().collect();
        let schema = json!({"type": "object", "properties": props});
        for dialect in [Dialect::OpenAiStrict, Dialect::Anthropic, Dialect::AnthropicStrict, Dialect::Gemini, Dialect::Mcp] {
            let _ = compile(&schema, dialect);
        }
        if let Ok(compiled) = compile(&schema, Dialect::OpenAiStrict) {
            let mut violations = Vec::new();
            strict_violations(&compiled.schema, "", &mut violations);
            prop_assert!(violations.is_empty(), "{:#?}\n{:#}", violations, compiled.schema);
        }
    }
}

mod tools {
    use serde_json::{Value, json};
    use toolwire::dialect::Dialect;
    use toolwire::{DefineErrorKind, Tool, ToolResult};

    fn weather(strict: bool) -> Result<Tool, toolwire::DefineError> {
        Tool::define("get_weather")
            .parameters(json!({
                "type": "object",
                "properties": {
                    "city": {"type": "string", "minLength": 1},
                    "days": {"type": "integer"},
                    "opts": {"type": "object", "properties": {"metric": {"type": "boolean"}}}
                },
                "required": ["city"]
            }))
            .strict(strict)
            .execute_sync(|args: Value, _| ToolResult::ok(args, "ok"))
            .build()
    }

    #[test]
    fn a_strict_tool_describes_itself_with_the_strict_schema() {
        let tool = weather(true).unwrap();
        let params = &tool.to_openai()["function"]["parameters"];
        assert_eq!(params["additionalProperties"], false);
        assert_eq!(params["required"], json!(["city", "days", "opts"]));
        assert_eq!(tool.to_flat_function()["parameters"], *params);
        assert_eq!(tool.to_anthropic()["input_schema"]["additionalProperties"], false);
        // The canonical schema, and the other providers' shapes, are untouched.
        assert!(tool.parameters().get("additionalProperties").is_none());
        assert_eq!(tool.to_mcp()["inputSchema"], *tool.parameters());
        let report = &tool.compiled(Dialect::OpenAiStrict).unwrap().changes;
        assert!(report.iter().any(|c| c.path == "/properties/days"), "{report:?}");
        // A lax tool keeps its schema everywhere.
        let lax = weather(false).unwrap();
        assert_eq!(lax.to_openai()["function"]["parameters"], *lax.parameters());
    }

    #[tokio::test]
    async fn the_nulls_strict_mode_sends_for_optional_properties_are_dropped() {
        let tool = weather(true).unwrap();
        let result =
            tool.execute(json!({"city": "Oslo", "days": null, "opts": {"metric": null}})).await;
        assert_eq!(result.json(), &json!({"city": "Oslo", "opts": {}}));
        let missing = tool.execute(json!({"city": null, "days": 2, "opts": null})).await;
        assert!(
            missing.text().unwrap().contains("/city: null is not of type \"string\""),
            "{missing:?}"
        );
        let lax = weather(false).unwrap();
        assert!(
            !lax.execute(json!({"city": "Oslo", "days": null})).await.is_success(),
            "only strict tools drop them"
        );
    }

    #[test]
    fn a_strict_tool_whose_schema_cannot_be_made_strict_fails_to_build() {
        let mut deep = json!({"type": "object", "properties": {}});
        for _ in 0..11 {
            deep = json!({"type": "object", "properties": {"x": deep}});
        }
        let error = Tool::define("deep")
            .parameters(deep)
            .strict(true)
            .execute_sync(|_, _| ToolResult::failure(""))
            .build()
            .unwrap_err();
        assert_eq!(error.kind(), DefineErrorKind::InvalidParameters);
        assert!(error.to_string().contains("cannot be made strict"), "{error}");
        assert!(error.to_string().contains("levels of object nesting"), "{error}");
    }
}
