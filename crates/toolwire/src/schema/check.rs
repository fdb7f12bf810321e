//! Setup-time checks of a parameter schema.

use serde_json::Value;

use super::compile::clip;

/// Checks that `schema` is a valid JSON Schema whose root is an object schema.
///
/// Returns a lowercase description of the first problem found.
pub(crate) fn check_parameters(schema: &Value) -> Result<(), String> {
    let Some(root) = schema.as_object() else {
        return Err(format!("expected a JSON object, got {}", type_name(schema)));
    };
    match root.get("type") {
        Some(Value::String(t)) if t == "object" => {}
        Some(other) => return Err(format!("/type: expected \"object\", got {other}")),
        None => return Err("/type: missing; the root must declare \"type\": \"object\"".into()),
    }
    jsonschema::meta::options().validate(schema).map_err(|error| {
        let path = error.instance_path().to_string();
        let place = if path.is_empty() { "(root)".to_owned() } else { path };
        format!("{place}: {}", clip(&error.to_string()))
    })
}

/// The JSON type of `value`, for messages.
pub(crate) fn type_name(value: &Value) -> &'static str {
    match value {
        Value::Null => "null",
        Value::Bool(_) => "a boolean",
        Value::Number(_) => "a number",
        Value::String(_) => "a string",
        Value::Array(_) => "an array",
        Value::Object(_) => "an object",
    }
}
