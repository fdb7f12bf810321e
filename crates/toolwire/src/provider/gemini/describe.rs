//! Gemini's tool shape: one `functionDeclaration`.

use serde_json::Value;

use crate::provider::shapes::{Definition, named};

/// `{"name", "description"?, "parametersJsonSchema"?}`.
///
/// Gemini's `parametersJsonSchema` takes JSON Schema as it is, so every valid parameter
/// schema is described faithfully. (Its other field, `parameters`, takes only an OpenAPI
/// subset and rejects many JSON Schema keywords.) A tool without parameters (an object schema
/// that declares no properties and constrains nothing else) goes without the field, as
/// Gemini expects of a function that takes no arguments.
pub(super) fn function_declaration(def: &Definition<'_>) -> Value {
    let mut map = named(def);
    if !declares_no_parameters(def.parameters) {
        map.insert("parametersJsonSchema".into(), def.parameters.clone());
    }
    Value::Object(map)
}

/// Whether `schema` is an object schema without parameters: no properties, and nothing else
/// that declares or constrains arguments (an `additionalProperties` of `true` or `false` and
/// an empty `required` aside).
fn declares_no_parameters(schema: &Value) -> bool {
    let Value::Object(map) = schema else { return false };
    let empty = |value: &Value| match value {
        Value::Object(map) => map.is_empty(),
        Value::Array(list) => list.is_empty(),
        _ => false,
    };
    map.iter().all(|(key, value)| match key.as_str() {
        "type" => value == "object",
        "properties" | "required" => empty(value),
        "additionalProperties" => value.is_boolean(),
        "$schema" | "$comment" | "title" | "description" => true,
        _ => false,
    })
}
