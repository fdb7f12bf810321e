//! One regression test per dialect defect, through the public API.

use std::time::{Duration, Instant};

use proptest::prelude::*;
use serde_json::{Value, json};
use toolwire::dialect::{CompileErrorKind, Dialect, compile};
use toolwire::{DefineErrorKind, Provider, Tool, ToolResult};

const ALL: [Dialect; 5] = [
    Dialect::OpenAiStrict,
    Dialect::Anthropic,
    Dialect::AnthropicStrict,
    Dialect::Gemini,
    Dialect::Mcp,
];

fn tool(parameters: Value) -> Result<Tool, toolwire::DefineError> {
    Tool::define("t").parameters(parameters).execute_sync(|_, _| ToolResult::failure("")).build()
}

#[test]
fn regression_all_of_keeps_every_branch() {
    let both = json!({"type": "integer", "allOf": [{"minimum": 1}, {"maximum": 9}]});
    let schema = json!({"type": "object", "properties": {"n": both}});
    for dialect in ALL {
        let compiled = compile(&schema, dialect).unwrap();
        let text = compiled.schema.to_string();
        assert!(text.contains("minimum") && text.contains("maximum"), "{dialect:?}: {text}");
    }
    let kept = compile(&schema, Dialect::Anthropic).unwrap();
    assert_eq!(kept.schema["properties"]["n"]["allOf"].as_array().map(Vec::len), Some(2));
}

/// Forty definitions, each referring to the next twice, with a sibling keyword so that even
/// OpenAI's strict mode inlines them: 2^40 copies if nothing stops it.
fn doubling(levels: usize) -> Value {
    let mut defs = serde_json::Map::new();
    for i in 0..levels {
        let next = json!({"$ref": format!("#/$defs/d{}", i + 1), "description": "next"});
        defs.insert(
            format!("d{i}"),
            json!({"type": "object", "properties": {"a": next.clone(), "b": next}}),
        );
    }
    defs.insert(format!("d{levels}"), json!({"type": "string"}));
    json!({
        "type": "object",
        "properties": {"root": {"$ref": "#/$defs/d0", "description": "start"}},
        "$defs": defs
    })
}

#[test]
fn regression_inlining_doubling_references_ends_in_an_error() {
    let schema = doubling(40);
    assert!(schema.to_string().len() < 8_000);
    for dialect in ALL {
        let started = Instant::now();
        let outcome = compile(&schema, dialect);
        assert!(started.elapsed() < Duration::from_secs(5), "{dialect:?} took too long");
        if matches!(dialect, Dialect::OpenAiStrict | Dialect::Gemini) {
            let error = outcome.unwrap_err();
            assert_eq!(error.kind(), CompileErrorKind::TooLarge, "{error}");
            assert!(error.to_string().contains("inlined values"), "{error}");
        }
    }
    let started = Instant::now();
    let built = tool(schema.clone()).unwrap();
    assert!(started.elapsed() < Duration::from_secs(5));
    assert_eq!(built.compiled(Dialect::Gemini).unwrap_err().kind(), CompileErrorKind::TooLarge);
    let strict = Tool::define("t")
        .parameters(schema)
        .strict(true)
        .execute_sync(|_, _| ToolResult::failure(""))
        .build()
        .unwrap_err();
    assert!(strict.to_string().contains("cannot be made strict"), "{strict}");
}

#[test]
fn regression_dialects_compile_on_first_use() {
    // Gemini's `parameters` cannot express recursion; the tool still builds, and only asking
    // for that dialect reports it.
    let recursive = json!({
        "type": "object",
        "properties": {"next": {"$ref": "#"}}
    });
    let built = tool(recursive.clone()).unwrap();
    assert_eq!(built.compiled(Dialect::Mcp).unwrap().schema, recursive);
    let error = built.compiled(Dialect::Gemini).unwrap_err();
    assert_eq!(error.kind(), CompileErrorKind::Recursive);
    assert_eq!(error.dialect(), Dialect::Gemini);
    // Asked twice, the same compilation answers.
    let first = built.compiled(Dialect::OpenAiStrict).unwrap() as *const _;
    assert_eq!(first, built.compiled(Dialect::OpenAiStrict).unwrap() as *const _);
}

#[test]
fn regression_huge_schemas_are_refused_at_build() {
    let properties: serde_json::Map<String, Value> =
        (0..100_000).map(|i| (format!("p{i}"), json!({"type": "string"}))).collect();
    let started = Instant::now();
    let error = tool(json!({"type": "object", "properties": properties})).unwrap_err();
    assert!(started.elapsed() < Duration::from_secs(10));
    assert_eq!(error.kind(), DefineErrorKind::InvalidParameters);
    assert!(error.to_string().contains("more than 100000 values"), "{error}");
    assert!(error.to_string().contains("/properties/"), "{error}");

    // 105 levels of subschemas, in 108 levels of JSON: under the JSON limit, over the
    // subschema one.
    let mut deep = json!({"type": "string"});
    for _ in 0..104 {
        deep = json!({"type": "array", "items": deep});
    }
    let deep = json!({"type": "object", "properties": {"x": deep}});
    let error = tool(deep).unwrap_err();
    assert_eq!(error.kind(), DefineErrorKind::InvalidParameters);
    assert!(error.to_string().contains("subschemas nested deeper than 100 levels"), "{error}");
    assert!(error.to_string().contains(": /properties/x/items/items/"), "{error}");
}

#[test]
fn regression_responses_shape_is_the_flat_function_with_a_type() {
    let built = tool(json!({"type": "object", "properties": {"q": {"type": "string"}}})).unwrap();
    let shape = built.to_responses();
    assert_eq!(shape["type"], "function");
    assert_eq!(shape["name"], "t");
    assert_eq!(shape["parameters"], *built.parameters());
    assert_eq!(shape["strict"], false, "Responses is strict unless told otherwise");
    assert_eq!(built.definition(Provider::Responses), shape);
}

#[test]
fn regression_anthropic_strict_refuses_recursion() {
    let recursive = json!({
        "type": "object",
        "properties": {"tree": {"$ref": "#/$defs/node"}},
        "$defs": {"node": {"type": "object", "properties": {"kids": {"type": "array", "items": {"$ref": "#/$defs/node"}}}}}
    });
    let error = compile(&recursive, Dialect::AnthropicStrict).unwrap_err();
    assert_eq!(error.kind(), CompileErrorKind::Recursive, "{error}");
    assert!(error.to_string().contains("#/$defs/node"), "{error}");
    let to_root = json!({"type": "object", "properties": {"again": {"$ref": "#"}}});
    assert_eq!(
        compile(&to_root, Dialect::AnthropicStrict).unwrap_err().kind(),
        CompileErrorKind::Recursive
    );
    assert!(compile(&to_root, Dialect::Anthropic).is_ok());
}

#[test]
fn regression_anthropic_strict_counts_optional_properties() {
    let optional = |n: usize| -> Value {
        let props: serde_json::Map<String, Value> =
            (0..n).map(|i| (format!("p{i}"), json!({"type": "string"}))).collect();
        json!({"type": "object", "properties": {"inner": {"type": "object", "properties": props}}, "required": ["inner"]})
    };
    assert!(compile(&optional(24), Dialect::AnthropicStrict).is_ok());
    let error = compile(&optional(25), Dialect::AnthropicStrict).unwrap_err();
    assert_eq!(error.kind(), CompileErrorKind::LimitExceeded);
    assert!(
        error.to_string().contains("25 optional properties in all; the limit is 24"),
        "{error}"
    );
}

#[test]
fn regression_compile_errors_have_a_kind_and_a_dialect() {
    let error = compile(&json!({"type": "string"}), Dialect::Mcp).unwrap_err();
    assert_eq!(error.kind(), CompileErrorKind::NotObjectRoot);
    assert_eq!(error.dialect(), Dialect::Mcp);
    let foreign = json!({"type": "object", "properties": {"x": {"$ref": "https://example.com/s"}}});
    let error = compile(&foreign, Dialect::Gemini).unwrap_err();
    assert_eq!(error.kind(), CompileErrorKind::BadReference);
    assert_eq!(error.path(), "/properties/x");
}

#[test]
fn regression_openai_strict_optional_const_accepts_null() {
    let schema = json!({"type": "object", "properties": {"v": {"type": "string", "const": "v1"}}});
    let compiled = compile(&schema, Dialect::OpenAiStrict).unwrap();
    assert_eq!(
        compiled.schema["properties"]["v"],
        json!({"anyOf": [{"type": "string", "const": "v1"}, {"type": "null"}]})
    );
    let listed = json!({"type": "object", "properties": {"e": {"type": ["string", "integer"], "enum": ["a", 1]}}});
    let compiled = compile(&listed, Dialect::OpenAiStrict).unwrap();
    assert_eq!(compiled.schema["properties"]["e"]["enum"], json!(["a", 1, null]));
    assert_eq!(compiled.schema["properties"]["e"]["type"], json!(["string", "integer", "null"]));
}

#[test]
fn regression_openai_strict_refuses_typeless_nodes() {
    for (typeless, at) in [
        (json!({}), "/properties/x"),
        (json!({"description": "anything"}), "/properties/x"),
        (json!({"anyOf": [{}, {"type": "null"}]}), "/properties/x/anyOf/0"),
        (json!(true), "/properties/x"),
    ] {
        let schema = json!({"type": "object", "properties": {"x": typeless}, "required": ["x"]});
        let error = compile(&schema, Dialect::OpenAiStrict).unwrap_err();
        assert_eq!(error.kind(), CompileErrorKind::Unsupported, "{error}");
        assert_eq!(error.path(), at, "{error}");
    }
}

#[test]
fn regression_openai_strict_refuses_a_root_any_of() {
    let schema = json!({"type": "object", "anyOf": [{"type": "object", "properties": {}}]});
    let error = compile(&schema, Dialect::OpenAiStrict).unwrap_err();
    assert_eq!(error.kind(), CompileErrorKind::NotObjectRoot);
    assert!(error.to_string().contains("the root must not be an `anyOf`"), "{error}");
}

#[test]
fn regression_openai_strict_checks_long_string_enums() {
    let enum_of = |count: usize, width: usize| -> Value {
        let values: Vec<Value> = (0..count).map(|i| json!(format!("{i:0width$}"))).collect();
        json!({"type": "object", "properties": {"e": {"type": "string", "enum": values}}, "required": ["e"]})
    };
    assert!(compile(&enum_of(300, 50), Dialect::OpenAiStrict).is_ok());
    let error = compile(&enum_of(300, 60), Dialect::OpenAiStrict).unwrap_err();
    assert_eq!(error.kind(), CompileErrorKind::LimitExceeded);
    assert_eq!(error.path(), "/properties/e");
    assert!(error.to_string().contains("past 250 values the limit is 15000"), "{error}");
}

#[test]
fn regression_gemini_enums_hold_only_strings() {
    let schema = json!({"type": "object", "properties": {
        "n": {"type": "integer", "enum": [1, 2, 3], "description": "How many"},
        "c": {"type": "boolean", "const": true}
    }});
    let compiled = compile(&schema, Dialect::Gemini).unwrap();
    let n = &compiled.schema["properties"]["n"];
    assert!(n.get("enum").is_none(), "{n}");
    assert_eq!(n["description"], "How many (one of: [1,2,3])");
    assert!(compiled.schema["properties"]["c"].get("enum").is_none());
    assert!(
        compiled
            .changes
            .iter()
            .any(|c| c.path == "/properties/n"
                && c.description.contains("Gemini takes only strings"))
    );
}

#[test]
fn regression_gemini_null_in_enum_becomes_nullable() {
    let schema = json!({"type": "object", "properties": {
        "u": {"type": ["string", "null"], "enum": ["c", "f", null]}
    }});
    let compiled = compile(&schema, Dialect::Gemini).unwrap();
    let u = &compiled.schema["properties"]["u"];
    assert_eq!(u["enum"], json!(["c", "f"]));
    assert_eq!(u["nullable"], true);
    assert_eq!(u["type"], "STRING");
}

#[test]
fn regression_gemini_empty_properties_are_removed() {
    let schema = json!({"type": "object", "properties": {
        "opts": {"type": "object", "properties": {}, "required": []}
    }});
    let compiled = compile(&schema, Dialect::Gemini).unwrap();
    assert_eq!(compiled.schema["properties"]["opts"], json!({"type": "OBJECT"}));
}

#[test]
fn regression_gemini_arrays_get_items() {
    let schema = json!({"type": "object", "properties": {"tags": {"type": "array"}}});
    let compiled = compile(&schema, Dialect::Gemini).unwrap();
    assert_eq!(compiled.schema["properties"]["tags"], json!({"type": "ARRAY", "items": {}}));
    assert!(compiled.changes.iter().any(|c| c.path == "/properties/tags"));
}

#[test]
fn regression_gemini_inlines_any_local_pointer() {
    let schema = json!({"type": "object", "properties": {
        "from": {"type": "object", "properties": {"city": {"type": "string"}}},
        "to": {"$ref": "#/properties/from"}
    }});
    let compiled = compile(&schema, Dialect::Gemini).unwrap();
    assert_eq!(compiled.schema["properties"]["to"], compiled.schema["properties"]["from"]);
    let looped = json!({"type": "object", "properties": {
        "a": {"type": "object", "properties": {"again": {"$ref": "#/properties/a"}}}
    }});
    assert_eq!(compile(&looped, Dialect::Gemini).unwrap_err().kind(), CompileErrorKind::Recursive);
}

#[test]
fn regression_tuples_still_accept_their_items() {
    let pair = json!({"type": "array", "prefixItems": [{"type": "string"}, {"type": "integer"}], "items": false});
    let schema = json!({"type": "object", "properties": {"pair": pair}, "required": ["pair"]});
    for dialect in [Dialect::OpenAiStrict, Dialect::AnthropicStrict, Dialect::Gemini] {
        let compiled = compile(&schema, dialect).unwrap();
        let out = &compiled.schema["properties"]["pair"];
        assert!(out.get("prefixItems").is_none(), "{dialect:?}: {out}");
        assert_ne!(out["items"], json!(false), "{dialect:?}: {out}");
        assert_eq!(out["items"]["anyOf"].as_array().map(Vec::len), Some(2), "{dialect:?}: {out}");
        assert!(compiled.changes.iter().any(|c| c.path == "/properties/pair"
            && c.description.contains("`prefixItems` became an `items`")));
    }
    let strict = compile(&schema, Dialect::OpenAiStrict).unwrap();
    assert_eq!(strict.schema["properties"]["pair"]["maxItems"], 2);
    assert_eq!(strict.schema["properties"]["pair"]["items"]["anyOf"][1]["type"], "integer");
}

/// Whether a tool with `schema` as its parameters takes `value`: the schema compiled as the
/// tool's validator.
async fn accepts(schema: &Value, value: Value) -> bool {
    let tool = Tool::define("t")
        .parameters(schema.clone())
        .execute_sync(|_, _| ToolResult::ok(json!(null), "ran"))
        .build()
        .unwrap_or_else(|error| panic!("{error}: {schema:#}"));
    tool.execute(value).await.is_success()
}

/// A pet: an `Animal` (by reference) that has a breed too.
fn pet_with_breed() -> Value {
    json!({
        "type": "object",
        "properties": {"pet": {"description": "The pet", "allOf": [
            {"$ref": "#/$defs/Animal"},
            {"type": "object", "properties": {"breed": {"type": "string"}}, "required": ["breed"]}
        ]}},
        "required": ["pet"],
        "$defs": {"Animal": {
            "type": "object",
            "properties": {"name": {"type": "string"}},
            "required": ["name"]
        }}
    })
}

#[tokio::test]
async fn regression_all_of_with_a_ref_branch_accepts_what_the_original_accepts() {
    let original = pet_with_breed();
    let valid = json!({"pet": {"name": "Rex", "breed": "collie"}});
    let invalid = [
        json!({"pet": {"name": "Rex"}}),
        json!({"pet": {"breed": "collie"}}),
        json!({"pet": {"name": 3, "breed": "collie"}}),
        json!({"pet": {"name": "Rex", "breed": 7}}),
    ];
    assert!(accepts(&original, valid.clone()).await);
    for value in &invalid {
        assert!(!accepts(&original, value.clone()).await, "{value}");
    }
    for dialect in [Dialect::OpenAiStrict, Dialect::AnthropicStrict] {
        let compiled = compile(&original, dialect).unwrap_or_else(|e| panic!("{dialect:?}: {e}"));
        let pet = &compiled.schema["properties"]["pet"];
        assert!(pet.get("allOf").is_none(), "{dialect:?}: {pet}");
        let mut required: Vec<&str> =
            pet["required"].as_array().unwrap().iter().filter_map(Value::as_str).collect();
        required.sort_unstable();
        assert_eq!(required, ["breed", "name"], "{dialect:?}: {pet}");
        assert_eq!(pet["additionalProperties"], false, "{dialect:?}: {pet}");
        assert_eq!(pet["description"], "The pet", "{dialect:?}: {pet}");
        assert!(accepts(&compiled.schema, valid.clone()).await, "{dialect:?}: {pet}");
        for value in &invalid {
            assert!(!accepts(&compiled.schema, value.clone()).await, "{dialect:?}: {value}");
        }
        assert!(
            compiled.changes.iter().any(|c| c.path == "/properties/pet"
                && c.description == "merged the 2 branches of `allOf` into one schema"),
            "{dialect:?}: {:#?}",
            compiled.changes
        );
    }
    let gemini = compile(&original, Dialect::Gemini).unwrap();
    let pet = &gemini.schema["properties"]["pet"];
    assert_eq!(pet["required"], json!(["name", "breed"]), "{pet}");
    assert_eq!(pet["properties"]["name"], json!({"type": "STRING"}), "{pet}");
    assert!(pet.get("allOf").is_none() && !pet.to_string().contains("allOf"), "{pet}");
}

#[tokio::test]
async fn regression_ref_beside_other_keywords_keeps_what_the_definition_says() {
    // `$ref` beside other keywords means both, like an `allOf` of the two.
    let mut original = pet_with_breed();
    original["properties"]["pet"] = json!({
        "$ref": "#/$defs/Animal",
        "properties": {"breed": {"type": "string"}},
        "required": ["breed"]
    });
    let valid = json!({"pet": {"name": "Rex", "breed": "collie"}});
    let invalid = json!({"pet": {"breed": "collie"}});
    assert!(accepts(&original, valid.clone()).await && !accepts(&original, invalid.clone()).await);
    for dialect in [Dialect::OpenAiStrict, Dialect::AnthropicStrict] {
        let compiled = compile(&original, dialect).unwrap();
        let pet = &compiled.schema["properties"]["pet"];
        assert!(accepts(&compiled.schema, valid.clone()).await, "{dialect:?}: {pet}");
        assert!(!accepts(&compiled.schema, invalid.clone()).await, "{dialect:?}: {pet}");
    }
    let gemini = compile(&original, Dialect::Gemini).unwrap();
    let pet = &gemini.schema["properties"]["pet"];
    assert_eq!(pet["properties"]["name"]["type"], "STRING", "{pet}");
    assert_eq!(pet["required"], json!(["breed", "name"]), "{pet}");
}

#[tokio::test]
async fn regression_all_of_merges_exactly_or_not_at_all() {
    // Bounds tighten and types intersect.
    let bounds = json!({"type": "object", "properties": {"v": {"allOf": [
        {"type": ["integer", "string"], "minimum": 1, "maximum": 9},
        {"type": "number", "minimum": 3}
    ]}}, "required": ["v"]});
    let compiled = compile(&bounds, Dialect::OpenAiStrict).unwrap();
    let v = &compiled.schema["properties"]["v"];
    assert_eq!(v, &json!({"type": "integer", "minimum": 3, "maximum": 9}), "{v}");
    // A property one branch lists meets the other's `additionalProperties`.
    let objects = json!({"type": "object", "properties": {"o": {"allOf": [
        {"type": "object", "properties": {"a": {"type": "string"}}, "additionalProperties": {"type": "string"}},
        {"type": "object", "properties": {"b": {"type": "integer"}}}
    ]}}, "required": ["o"]});
    let closed = compile(&objects, Dialect::AnthropicStrict).unwrap();
    for (schema, compiled, value, passes) in [
        (&bounds, &compiled.schema, json!({"v": 3}), true),
        (&bounds, &compiled.schema, json!({"v": 2}), false),
        (&bounds, &compiled.schema, json!({"v": 3.5}), false),
        (&bounds, &compiled.schema, json!({"v": "x"}), false),
        (&objects, &closed.schema, json!({"o": {"a": "x"}}), true),
        (&objects, &closed.schema, json!({"o": {"a": "x", "b": 1}}), false),
        (&objects, &closed.schema, json!({"o": {"a": 1}}), false),
    ] {
        assert_eq!(accepts(schema, value.clone()).await, passes, "original: {value}");
        assert_eq!(accepts(compiled, value.clone()).await, passes, "compiled: {value}");
    }
    // Two patterns cannot be one: OpenAI strict keeps them in the description and says so,
    // and refuses an `allOf` that leaves a node without a type.
    let patterns = json!({"type": "object", "properties": {
        "s": {"type": "string", "allOf": [{"pattern": "^a"}, {"pattern": "z$"}]}
    }, "required": ["s"]});
    let strict = compile(&patterns, Dialect::OpenAiStrict).unwrap();
    assert!(strict.changes.iter().any(|c| c.path == "/properties/s"
        && c.description.contains(
            "`allOf` could not be made one schema (its branches give `pattern` different values"
        )));
    let typeless = json!({"type": "object", "properties": {
        "s": {"allOf": [{"type": "string", "pattern": "^a"}, {"type": "string", "pattern": "z$"}]}
    }, "required": ["s"]});
    let error = compile(&typeless, Dialect::OpenAiStrict).unwrap_err();
    assert_eq!((error.kind(), error.path()), (CompileErrorKind::Unsupported, "/properties/s"));
    assert!(error.to_string().contains("strict mode has no `allOf`"), "{error}");
    assert!(compile(&typeless, Dialect::AnthropicStrict).is_ok(), "no objects to close");
}

#[test]
fn regression_anthropic_strict_refuses_closing_objects_of_an_all_of_it_cannot_merge() {
    let conditional = |name: &str| {
        json!({"type": "object", "properties": {name: {"type": "string"}},
            "if": {"required": [name]}, "then": {"required": ["id"]}})
    };
    let schema = json!({"type": "object", "properties": {
        "both": {"allOf": [conditional("a"), conditional("b")]}
    }, "required": ["both"]});
    let error = compile(&schema, Dialect::AnthropicStrict).unwrap_err();
    assert_eq!((error.kind(), error.path()), (CompileErrorKind::Unsupported, "/properties/both"));
    assert!(error.to_string().contains("refusing every value"), "{error}");
}

#[test]
fn regression_gemini_boolean_subschemas_become_objects() {
    let schema = json!({"type": "object", "properties": {
        "anything": true,
        "never": false,
        "list": {"type": "array", "items": true},
        "empty": {"type": "array", "items": false},
        "either": {"anyOf": [false, true, {"type": "string"}]}
    }, "required": ["anything", "never"]});
    let compiled = compile(&schema, Dialect::Gemini).unwrap();
    let out = &compiled.schema;
    assert_eq!(out["properties"]["anything"], json!({}));
    assert!(out["properties"].get("never").is_none(), "{out}");
    assert_eq!(out["required"], json!(["anything"]));
    assert_eq!(out["description"], "(must not be given: never)");
    assert_eq!(out["properties"]["list"], json!({"type": "ARRAY", "items": {}}));
    assert_eq!(out["properties"]["empty"], json!({"type": "ARRAY", "items": {}, "maxItems": 0}));
    assert_eq!(out["properties"]["either"]["anyOf"], json!([{}, {"type": "STRING"}]));
    assert!(!out.to_string().contains("true") && !out.to_string().contains("false"), "{out}");
    for at in ["/properties/anything", "/properties/never", "/properties/list", "/properties/empty"]
    {
        assert!(compiled.changes.iter().any(|c| c.path == at), "{at}: {:#?}", compiled.changes);
    }
    assert!(compiled.changes.iter().any(|c| c.path == "/properties/never"
        && c.description.contains("Gemini cannot forbid a property")));
}

#[test]
fn regression_gemini_any_of_of_bare_required_moves_into_the_description() {
    let schema = json!({
        "type": "object",
        "properties": {"email": {"type": "string"}, "phone": {"type": "string"}},
        "anyOf": [{"required": ["email"]}, {"required": ["phone"]}]
    });
    let compiled = compile(&schema, Dialect::Gemini).unwrap();
    let out = &compiled.schema;
    assert!(out.get("anyOf").is_none(), "{out}");
    assert_eq!(out["properties"]["phone"], json!({"type": "STRING"}));
    assert_eq!(out["description"], r#"(anyOf: [{"required":["email"]},{"required":["phone"]}])"#);
    assert!(compiled.changes.iter().any(|c| c.path.is_empty()
        && c.description.contains("removed the `anyOf` of `required` constraints")));
    // Names a node does not define leave its `required` too.
    let undefined =
        json!({"type": "object", "properties": {"a": {"type": "string"}}, "required": ["a", "b"]});
    let compiled = compile(&undefined, Dialect::Gemini).unwrap();
    assert_eq!(compiled.schema["required"], json!(["a"]));
    assert_eq!(compiled.schema["description"], r#"(required: ["b"])"#);
    assert!(compiled.changes.iter().any(|c| c.description.contains("does not define")));
}

#[test]
fn regression_gemini_tool_without_parameters_goes_without_them() {
    for schema in [
        json!({"type": "object", "properties": {}}),
        json!({"type": "object"}),
        json!({"type": "object", "properties": {}, "required": [], "additionalProperties": false}),
    ] {
        let compiled = compile(&schema, Dialect::Gemini).unwrap();
        assert_eq!(compiled.schema, Value::Null, "{schema}");
        assert!(
            compiled.changes.iter().any(|c| c.path.is_empty()
                && c.description.contains("the function goes without `parameters`")),
            "{:#?}",
            compiled.changes
        );
        let bare = tool(schema.clone()).unwrap();
        assert_eq!(bare.to_gemini(), &json!({"name": "t"}), "{schema}");
    }
    let no_parameters = Tool::define("now").execute_sync(|_, _| ToolResult::failure("")).build();
    let no_parameters = no_parameters.unwrap();
    assert_eq!(no_parameters.to_gemini(), &json!({"name": "now"}));
    assert_eq!(no_parameters.compiled(Dialect::Gemini).unwrap().schema, Value::Null);
    // A schema that takes arguments keeps them, even without listing properties.
    let free_form = json!({"type": "object", "additionalProperties": {"type": "string"}});
    let free_form = tool(free_form.clone()).unwrap();
    assert_eq!(free_form.to_gemini()["parametersJsonSchema"], *free_form.parameters());
}

/// Branches of an `allOf` over numbers and strings, in keywords OpenAI's strict mode keeps.
fn all_of_branch() -> impl Strategy<Value = Value> {
    prop_oneof![
        (0i64..6).prop_map(|n| json!({"type": "integer", "minimum": n})),
        (0i64..6).prop_map(|n| json!({"type": ["number", "string"], "maximum": n})),
        (0i64..6).prop_map(|n| json!({"exclusiveMinimum": n})),
        Just(json!({"enum": [1, 2, 3, "a"]})),
        Just(json!({"type": "string", "pattern": "^a"})),
        Just(json!({"multipleOf": 2})),
        Just(json!(true)),
    ]
}

fn all_of_instance() -> impl Strategy<Value = Value> {
    prop_oneof![
        (-1i64..8).prop_map(Value::from),
        Just(json!(2.5)),
        Just(json!("a")),
        Just(json!("ba")),
        Just(json!(null)),
        Just(json!(true)),
    ]
}

proptest! {
    #[test]
    fn regression_merged_all_of_accepts_exactly_what_its_branches_accept(
        branches in prop::collection::vec(all_of_branch(), 1..4),
        instances in prop::collection::vec(all_of_instance(), 1..10),
    ) {
        let schema = json!({"type": "object", "properties": {"x": {"allOf": branches}}, "required": ["x"]});
        let compiled = compile(&schema, Dialect::OpenAiStrict);
        // A node left without a type (only bounds) is refused; everything else compiles.
        prop_assume!(compiled.is_ok());
        let compiled = compiled.unwrap();
        let merged = compiled.changes.iter().any(|c| c.description.contains("into one schema"));
        prop_assert!(merged, "{:#?}", compiled.changes);
        let original = jsonschema::validator_for(&schema).unwrap();
        let output = jsonschema::validator_for(&compiled.schema).unwrap();
        for instance in instances {
            let value = json!({"x": instance});
            prop_assert_eq!(
                original.is_valid(&value),
                output.is_valid(&value),
                "{} in {:#} and {:#}", value, schema, compiled.schema
            );
        }
    }
}
