//! `required`, which Gemini takes only for names the same node defines in `properties`: an
//! `anyOf` (or `oneOf`) whose branches are only `required` constraints moves into the
//! description, and the names a node does not define leave its `required` for its
//! description.

use serde_json::{Map, Value};

use super::super::Changes;
use super::super::walk::describe;

/// Moves an `anyOf` or `oneOf` of bare `required` constraints, such as
/// `[{"required": ["a"]}, {"required": ["b"]}]`, into the description of `map`.
pub(super) fn constraints(map: &mut Map<String, Value>, path: &str, changes: &mut Changes) {
    for key in ["anyOf", "oneOf"] {
        let bare = match map.get(key) {
            Some(Value::Array(branches)) => !branches.is_empty() && branches.iter().all(is_bare),
            _ => false,
        };
        if !bare {
            continue;
        }
        let Some(branches) = map.remove(key) else { continue };
        describe(map, &format!("{key}: {branches}"));
        changes.note(
            path,
            format!(
                "removed the `{key}` of `required` constraints {branches}, as Gemini takes \
                 `required` only for properties the same node defines; kept in the description"
            ),
        );
    }
}

/// Whether `branch` only requires names, and defines none of them.
fn is_bare(branch: &Value) -> bool {
    let Value::Object(map) = branch else { return false };
    map.contains_key("required")
        && map.keys().all(|key| matches!(key.as_str(), "required" | "description" | "title"))
}

/// Removes from the `required` of `map` the names its `properties` do not define, keeping
/// them in the description.
pub(super) fn undefined(map: &mut Map<String, Value>, path: &str, changes: &mut Changes) {
    let Some(Value::Array(names)) = map.get("required") else { return };
    let properties = map.get("properties").and_then(Value::as_object);
    let defined =
        |name: &Value| name.as_str().is_some_and(|n| properties.is_some_and(|p| p.contains_key(n)));
    let (kept, dropped): (Vec<Value>, Vec<Value>) = names.iter().cloned().partition(defined);
    if dropped.is_empty() {
        return;
    }
    if kept.is_empty() {
        map.remove("required");
    } else {
        map.insert("required".into(), Value::Array(kept));
    }
    let dropped = Value::Array(dropped);
    describe(map, &format!("required: {dropped}"));
    changes.note(
        path,
        format!(
            "removed the `required` names {dropped}, which the node does not define in \
             `properties` and Gemini refuses; kept in the description"
        ),
    );
}
