//! Gemini's `enum` takes strings only, and no `null`: `const` becomes a one-value `enum`,
//! `null` becomes `nullable: true`, and an `enum` of other values moves into the description.

use serde_json::{Value, json};

use super::super::Changes;
use super::super::walk::describe;
use serde_json::Map;

/// Rewrites the `const` and `enum` of `map` into what Gemini accepts, noting each change.
pub(super) fn enums(map: &mut Map<String, Value>, path: &str, changes: &mut Changes) {
    if let Some(value) = map.remove("const") {
        map.insert("enum".into(), json!([value]));
        changes.note(path, "`const` became a one-value `enum`");
    }
    let Some(Value::Array(mut values)) = map.remove("enum") else { return };
    if values.contains(&Value::Null) {
        values.retain(|value| !value.is_null());
        map.insert("nullable".into(), Value::Bool(true));
        changes.note(path, "`null` in `enum` became `nullable: true`");
    }
    if values.is_empty() {
        return;
    }
    if values.iter().all(Value::is_string) {
        map.insert("enum".into(), Value::Array(values));
        return;
    }
    let listed = Value::Array(values);
    describe(map, &format!("one of: {listed}"));
    changes.note(
        path,
        format!(
            "removed the `enum` {listed}, as Gemini takes only strings; kept in the description"
        ),
    );
}
