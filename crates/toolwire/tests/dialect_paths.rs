//! Every change a compilation reports, and every error, points at a node of the schema the
//! user wrote.

use proptest::prelude::*;
use schemars::JsonSchema;
use serde_json::{Map, Value, json};
use toolwire::dialect::{Dialect, compile};
use toolwire::typed::parameters_of;

const ALL: [Dialect; 5] = [
    Dialect::OpenAiStrict,
    Dialect::Anthropic,
    Dialect::AnthropicStrict,
    Dialect::Gemini,
    Dialect::Mcp,
];

/// The paths of `schema`'s changes and error, for every dialect, that do not resolve in it.
fn unresolved(schema: &Value) -> Vec<String> {
    let mut missing = Vec::new();
    for dialect in ALL {
        let paths: Vec<String> = match compile(schema, dialect) {
            Ok(compiled) => compiled.changes.into_iter().map(|c| c.path).collect(),
            Err(error) => vec![error.path().to_owned()],
        };
        for path in paths {
            if schema.pointer(&path).is_none() {
                missing.push(format!("{dialect:?}: {path}"));
            }
        }
    }
    missing
}

#[expect(dead_code, reason = "only its schema is used")]
#[derive(JsonSchema)]
enum Shape {
    Circle { radius: f64 },
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
    /// Documented, so its `$ref` has a sibling.
    inner: Inner,
    maybe: Option<Inner>,
    shapes: Vec<Shape>,
    #[schemars(length(min = 1, max = 10))]
    name: String,
}

#[test]
fn regression_change_paths_resolve_in_the_original_schema() {
    let schemas = [
        parameters_of::<Outer>(),
        parameters_of::<Inner>(),
        json!({"type": "object", "properties": {
            "pick": {"oneOf": [{"type": "string", "minLength": 2}, {"type": "integer", "format": "int9"}]},
            "both": {"anyOf": [{"type": "string"}], "oneOf": [{"type": "object", "properties": {"x": {"type": "string", "maxLength": 3}}}]}
        }}),
        json!({"type": "object",
            "properties": {"to": {"$ref": "#/$defs/place", "description": "where"}},
            "$defs": {"place": {"type": "object", "properties": {"city": {"type": "string", "minLength": 1}, "zip": {"type": "string"}}}}
        }),
        json!({"type": "object", "properties": {
            "from": {"type": "object", "properties": {"n": {"type": "integer", "enum": [1, 2]}}},
            "to": {"$ref": "#/properties/from"}
        }}),
        json!({"type": "object", "properties": {"pair": {"type": "array",
            "prefixItems": [{"type": "string", "maxLength": 2}, {"oneOf": [{"type": "integer", "minimum": 1}]}], "items": false}}}),
        json!({"type": "object", "properties": {"n": {"type": ["integer", "null"], "multipleOf": 2, "not": {"const": 4}}}}),
        json!({"type": "object", "properties": {"bad": {"description": "no type"}}}),
    ];
    for schema in schemas {
        let missing = unresolved(&schema);
        assert!(missing.is_empty(), "{missing:#?}\n{schema:#}");
    }
}

#[test]
fn regression_one_of_stays_in_change_paths() {
    let schema = json!({"type": "object", "properties": {
        "pick": {"oneOf": [{"type": "string", "deprecated": true}, {"type": "integer"}]}
    }, "required": ["pick"]});
    for dialect in [Dialect::OpenAiStrict, Dialect::AnthropicStrict, Dialect::Gemini] {
        let changes = compile(&schema, dialect).unwrap().changes;
        assert!(
            changes.iter().any(|c| c.path == "/properties/pick/oneOf/0"),
            "{dialect:?}: {changes:#?}"
        );
    }
}

#[test]
fn regression_inlined_changes_are_reported_in_the_definition() {
    let schema = json!({"type": "object",
        "properties": {"to": {"$ref": "#/$defs/place", "description": "where"}},
        "$defs": {"place": {"type": "object", "properties": {"city": {"type": "string", "deprecated": true}}}}
    });
    for dialect in [Dialect::OpenAiStrict, Dialect::Gemini] {
        let changes = compile(&schema, dialect).unwrap().changes;
        assert!(
            changes.iter().any(|c| c.path == "/$defs/place/properties/city"
                && c.description.contains("deprecated")),
            "{dialect:?}: {changes:#?}"
        );
    }
}

/// Schema-like values with references and `oneOf`s among them.
fn schema_like() -> impl Strategy<Value = Value> {
    let leaf = prop_oneof![
        Just(json!({"type": "string", "minLength": 1})),
        Just(json!({"type": ["integer", "null"], "enum": [1, null]})),
        Just(json!({"$ref": "#/$defs/d", "description": "d"})),
        Just(json!({"$ref": "#/properties/a"})),
        Just(json!({"type": "array", "prefixItems": [{"type": "string"}], "items": false})),
        Just(json!({"const": 3})),
        Just(json!({})),
    ];
    leaf.prop_recursive(3, 24, 4, |inner| {
        prop_oneof![
            prop::collection::btree_map("[a-c]", inner.clone(), 0..4).prop_map(|props| {
                json!({"type": "object", "properties": props.into_iter().collect::<Map<_, _>>()})
            }),
            prop::collection::vec(inner.clone(), 1..3).prop_map(|b| json!({"oneOf": b})),
            (prop::collection::vec(inner.clone(), 1..3), inner.clone())
                .prop_map(|(b, any)| json!({"anyOf": [any], "oneOf": b})),
            inner.prop_map(|item| json!({"type": "array", "items": item, "minItems": 3})),
        ]
    })
}

proptest! {
    #[test]
    fn every_change_path_resolves(
        properties in prop::collection::btree_map("[a-c]", schema_like(), 1..4),
        definition in schema_like(),
    ) {
        let props: Map<String, Value> = properties.into_iter().collect();
        let schema = json!({"type": "object", "properties": props, "$defs": {"d": definition}});
        let missing = unresolved(&schema);
        prop_assert!(missing.is_empty(), "{:#?}\n{:#}", missing, schema);
    }
}
