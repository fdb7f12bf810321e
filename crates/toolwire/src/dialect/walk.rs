//! Walking the subschemas of a schema, with their JSON pointers.

use serde_json::{Map, Value};

use super::{CompileError, CompileErrorKind, Dialect};

/// How deep a compilation goes before it gives up; schemas a tool accepts are shallower.
pub(super) const MAX_DEPTH: usize = 128;

/// Keywords whose value is a map of subschemas.
const MAPS: [&str; 4] = ["properties", "$defs", "definitions", "patternProperties"];
/// Keywords whose value is a list of subschemas.
const LISTS: [&str; 4] = ["anyOf", "oneOf", "allOf", "prefixItems"];
/// Keywords whose value is one subschema.
const SINGLES: [&str; 6] = ["items", "additionalProperties", "not", "if", "then", "else"];

/// Calls `visit` on every direct subschema of `node`, with its path.
pub(super) fn children(
    node: &mut Map<String, Value>,
    path: &str,
    mut visit: impl FnMut(&mut Value, &str) -> Result<(), CompileError>,
) -> Result<(), CompileError> {
    for key in MAPS {
        if let Some(Value::Object(map)) = node.get_mut(key) {
            for (name, child) in map.iter_mut() {
                visit(child, &format!("{path}/{key}/{}", escape(name)))?;
            }
        }
    }
    for key in LISTS {
        if let Some(Value::Array(list)) = node.get_mut(key) {
            for (i, child) in list.iter_mut().enumerate() {
                visit(child, &format!("{path}/{key}/{i}"))?;
            }
        }
    }
    for key in SINGLES {
        if let Some(child @ Value::Object(_)) = node.get_mut(key) {
            visit(child, &format!("{path}/{key}"))?;
        }
    }
    Ok(())
}

/// The direct subschemas of `node`, with their paths; [`children`] for reading.
pub(super) fn subschemas<'a>(node: &'a Map<String, Value>, path: &str) -> Vec<(String, &'a Value)> {
    let mut found = Vec::new();
    for key in MAPS {
        if let Some(Value::Object(map)) = node.get(key) {
            found.extend(map.iter().map(|(name, c)| (format!("{path}/{key}/{}", escape(name)), c)));
        }
    }
    for key in LISTS {
        if let Some(Value::Array(list)) = node.get(key) {
            found.extend(list.iter().enumerate().map(|(i, c)| (format!("{path}/{key}/{i}"), c)));
        }
    }
    for key in SINGLES {
        if let Some(child @ Value::Object(_)) = node.get(key) {
            found.push((format!("{path}/{key}"), child));
        }
    }
    found
}

/// Fails when a compilation goes deeper than [`MAX_DEPTH`].
pub(super) fn guard(dialect: Dialect, depth: usize, path: &str) -> Result<(), CompileError> {
    if depth > MAX_DEPTH {
        return Err(CompileError::new(
            dialect,
            CompileErrorKind::TooLarge,
            path,
            format!("nested deeper than {MAX_DEPTH} levels"),
        ));
    }
    Ok(())
}

/// Whether `node` describes an object.
pub(super) fn is_object_schema(node: &Map<String, Value>) -> bool {
    match node.get("type") {
        Some(Value::String(t)) => t == "object",
        Some(Value::Array(types)) => types.iter().any(|t| t == "object"),
        _ => node.contains_key("properties"),
    }
}

/// Removes the keywords of `node` not in `allowed`, appending them to its description so the
/// model still reads them, and noting each.
pub(super) fn keep_only(
    node: &mut Map<String, Value>,
    path: &str,
    allowed: &[&str],
    changes: &mut super::Changes,
) {
    let dropped: Vec<String> =
        node.keys().filter(|k| !allowed.contains(&k.as_str())).cloned().collect();
    let mut notes = Vec::new();
    for key in dropped {
        if let Some(value) = node.remove(&key) {
            changes.note(
                path,
                format!(
                    "removed the unsupported keyword `{key}` ({value}); kept in the description"
                ),
            );
            notes.push(format!("{key}: {value}"));
        }
    }
    if !notes.is_empty() {
        describe(node, &notes.join("; "));
    }
}

/// Appends `(note)` to the description of `node`, so the model still reads what a keyword
/// said once the keyword is gone.
pub(super) fn describe(node: &mut Map<String, Value>, note: &str) {
    let description = match node.get("description").and_then(Value::as_str) {
        Some(text) if !text.is_empty() => format!("{text} ({note})"),
        _ => format!("({note})"),
    };
    node.insert("description".into(), Value::String(description));
}

pub(super) use crate::pointer::escape;

/// Appends `branches` to the `anyOf` of `map`, making it if absent.
pub(super) fn extend_any_of(
    map: &mut Map<String, Value>,
    branches: impl IntoIterator<Item = Value>,
) {
    match map.get_mut("anyOf") {
        Some(Value::Array(list)) => list.extend(branches),
        _ => {
            map.insert("anyOf".into(), Value::Array(branches.into_iter().collect()));
        }
    }
}

/// `oneOf` becomes `anyOf`: no dialect needs exclusivity to be checked by the provider.
/// (An `allOf` is merged before, by `all_of::merge`.)
pub(super) fn unify_branches(
    map: &mut Map<String, Value>,
    path: &str,
    changes: &mut super::Changes,
) {
    if let Some(Value::Array(branches)) = map.remove("oneOf") {
        extend_any_of(map, branches);
        changes.note(path, "`oneOf` became `anyOf`");
    }
}
