//! Optional properties made nullable, as strict mode requires every property be listed.

use serde_json::{Map, Value, json};

use super::super::walk::extend_any_of;

/// Lets `schema` accept `null`; tells whether it had to change.
///
/// A schema with a `type` (and maybe an `enum`) is widened in place; an `anyOf` gets a `null`
/// branch; anything else, such as a `const` or a `$ref`, which no widening lets through, is
/// wrapped as `anyOf: [schema, {"type": "null"}]`.
pub(super) fn make_nullable(schema: &mut Value) -> bool {
    if allows_null(schema) {
        return false;
    }
    let wrap = match schema {
        Value::Object(map) if has_only(map, "type") => {
            widen(map);
            false
        }
        Value::Object(map) if has_only(map, "anyOf") => {
            extend_any_of(map, [json!({"type": "null"})]);
            false
        }
        _ => true,
    };
    if wrap {
        *schema = json!({"anyOf": [schema.take(), {"type": "null"}]});
    }
    true
}

/// Whether, of the keywords that decide which values `map` accepts, it has `key` and none of
/// the others but `enum` (which widening extends too).
fn has_only(map: &Map<String, Value>, key: &str) -> bool {
    let others = ["type", "anyOf", "const", "$ref"].into_iter().filter(|k| *k != key);
    map.contains_key(key)
        && !others.into_iter().any(|k| map.contains_key(k))
        && (key == "type" || !map.contains_key("enum"))
}

/// Adds `null` to the `type` and `enum` of `map`.
fn widen(map: &mut Map<String, Value>) {
    let null_type = Value::String("null".into());
    match map.get_mut("type") {
        Some(Value::String(kind)) => {
            let kind = Value::String(std::mem::take(kind));
            map.insert("type".into(), Value::Array(vec![kind, null_type]));
        }
        Some(Value::Array(kinds)) if !kinds.contains(&null_type) => kinds.push(null_type),
        _ => {}
    }
    if let Some(Value::Array(values)) = map.get_mut("enum")
        && !values.contains(&Value::Null)
    {
        values.push(Value::Null);
    }
}

/// Whether `schema` already accepts `null`: every keyword that restricts values lets it pass.
fn allows_null(schema: &Value) -> bool {
    let Value::Object(map) = schema else { return schema == &Value::Bool(true) };
    if map.contains_key("$ref") {
        return false;
    }
    let type_ok = match map.get("type") {
        None => true,
        Some(Value::String(kind)) => kind == "null",
        Some(Value::Array(kinds)) => kinds.iter().any(|k| k == "null"),
        Some(_) => false,
    };
    let listed = |values: &Value| values.as_array().is_some_and(|v| v.contains(&Value::Null));
    let enum_ok = map.get("enum").is_none_or(listed);
    let const_ok = map.get("const").is_none_or(Value::is_null);
    let branch_ok = map
        .get("anyOf")
        .is_none_or(|branches| branches.as_array().is_some_and(|b| b.iter().any(allows_null)));
    type_ok && enum_ok && const_ok && branch_ok
}
