//! Boolean subschemas, which Gemini's `Schema` (an object) cannot be: `true` becomes `{}`, a
//! schema without constraints, and `false`, which no value passes, takes away what it stood
//! for: a property (which Gemini cannot forbid) is removed and named in the description, an
//! `anyOf` branch is dropped, and `items: false` becomes `maxItems: 0`.

use serde_json::{Map, Value, json};

use super::super::Changes;
use super::super::walk::{describe, escape};

/// Rewrites the boolean subschemas among the properties, items and branches of `map`.
pub(super) fn booleans(map: &mut Map<String, Value>, path: &str, changes: &mut Changes) {
    properties(map, path, changes);
    items(map, path, changes);
    branches(map, path, changes);
}

const TRUE_NOTE: &str =
    "the schema `true` became `{}` (any value), as Gemini's schemas are objects";

fn properties(map: &mut Map<String, Value>, path: &str, changes: &mut Changes) {
    let Some(Value::Object(properties)) = map.get_mut("properties") else { return };
    let mut refused = Vec::new();
    for (name, schema) in properties.iter_mut() {
        let at = format!("{path}/properties/{}", escape(name));
        match schema {
            Value::Bool(true) => {
                *schema = json!({});
                changes.note(&at, TRUE_NOTE);
            }
            Value::Bool(false) => refused.push((name.clone(), at)),
            _ => {}
        }
    }
    for (name, at) in &refused {
        properties.remove(name);
        changes.note(
            at,
            "removed the property: its schema `false` refuses every value, and Gemini cannot \
             forbid a property; kept in the description",
        );
    }
    if refused.is_empty() {
        return;
    }
    let names: Vec<&str> = refused.iter().map(|(name, _)| name.as_str()).collect();
    if let Some(Value::Array(required)) = map.get_mut("required") {
        required.retain(|name| !name.as_str().is_some_and(|name| names.contains(&name)));
    }
    describe(map, &format!("must not be given: {}", names.join(", ")));
}

fn items(map: &mut Map<String, Value>, path: &str, changes: &mut Changes) {
    let Some(Value::Bool(allowed)) = map.get("items").cloned() else { return };
    map.insert("items".into(), json!({}));
    if allowed {
        changes.note(path, format!("`items`: {TRUE_NOTE}"));
        return;
    }
    map.insert("maxItems".into(), json!(0));
    changes.note(path, "`items: false` (no item passes) became `maxItems: 0`");
}

fn branches(map: &mut Map<String, Value>, path: &str, changes: &mut Changes) {
    let Some(Value::Array(branches)) = map.get_mut("anyOf") else { return };
    let before = branches.len();
    branches.retain(|branch| branch != &Value::Bool(false));
    for (i, branch) in branches.iter_mut().enumerate() {
        if branch == &Value::Bool(true) {
            *branch = json!({});
            changes.note(&format!("{path}/anyOf/{i}"), TRUE_NOTE);
        }
    }
    if branches.len() == before {
        return;
    }
    changes.note(path, "removed the `anyOf` branches `false`, which no value passes");
    if branches.is_empty() {
        map.remove("anyOf");
        describe(map, "no value is valid");
        changes.note(path, "removed the `anyOf` left without branches; kept in the description");
    }
}
