//! Strict mode's `null`s: OpenAI's strict mode makes every property required and sends
//! `null` for the ones the model leaves out. Before validation against the tool's own schema,
//! those `null`s are dropped again.

use serde_json::Value;

/// Removes, from `args` and the objects nested in it along `schema`'s `properties`, every
/// `null` given for a property the schema does not require. Properties behind a `$ref` are
/// left as they are.
pub(crate) fn drop_optional_nulls(args: &mut Value, schema: &Value) {
    let (Value::Object(map), Some(properties)) =
        (args, schema.get("properties").and_then(Value::as_object))
    else {
        return;
    };
    let required = schema.get("required").and_then(Value::as_array);
    let is_required = |key: &str| required.is_some_and(|r| r.iter().any(|name| name == key));
    map.retain(|key, value| {
        !(value.is_null() && properties.contains_key(key) && !is_required(key))
    });
    for (key, value) in map.iter_mut() {
        if let Some(child) = properties.get(key) {
            drop_optional_nulls(value, child);
        }
    }
}
