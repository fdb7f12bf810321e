//! Anthropic strict mode: closed objects, `oneOf` as `anyOf`, and its subset of keywords
//! (`minItems` of 0 or 1 only); other keywords move into the description.

use serde_json::{Map, Value};

use super::walk::{children, guard, is_object_schema, keep_only, unify_branches};
use super::{Changes, CompileError, Dialect};

const DIALECT: Dialect = Dialect::AnthropicStrict;

/// The keywords Anthropic's strict mode accepts.
const ALLOWED: &[&str] = &[
    "type",
    "properties",
    "required",
    "additionalProperties",
    "items",
    "enum",
    "const",
    "anyOf",
    "allOf",
    "$ref",
    "$defs",
    "definitions",
    "description",
    "title",
    "format",
    "minItems",
];

/// The string formats it accepts.
const FORMATS: &[&str] =
    &["date-time", "time", "date", "duration", "email", "hostname", "uri", "ipv4", "ipv6", "uuid"];

pub(super) fn strict(schema: &Value, changes: &mut Changes) -> Result<Value, CompileError> {
    let mut root = schema.clone();
    if root.as_object_mut().is_some_and(|map| map.remove("$schema").is_some()) {
        changes.note("", "removed `$schema`");
    }
    visit(&mut root, "", 0, changes)?;
    Ok(root)
}

fn visit(
    node: &mut Value,
    path: &str,
    depth: usize,
    changes: &mut Changes,
) -> Result<(), CompileError> {
    guard(DIALECT, depth, path)?;
    let Value::Object(map) = node else { return Ok(()) };
    rewrite(map, path, changes);
    children(map, path, |child, at| visit(child, at, depth + 1, changes))?;
    if is_object_schema(map) && map.get("additionalProperties") != Some(&Value::Bool(false)) {
        map.insert("additionalProperties".into(), Value::Bool(false));
        changes.note(path, "set `additionalProperties: false`");
    }
    Ok(())
}

fn rewrite(map: &mut Map<String, Value>, path: &str, changes: &mut Changes) {
    unify_branches(map, path, changes);
    let min_items = map.get("minItems").and_then(Value::as_u64);
    if let Some(count) = min_items.filter(|&n| n > 1) {
        map.remove("minItems");
        changes.note(path, format!("removed `minItems: {count}`; only 0 or 1 is supported"));
    }
    let format = map.get("format").and_then(Value::as_str).map(str::to_owned);
    if let Some(format) = format.filter(|f| !FORMATS.contains(&f.as_str())) {
        map.remove("format");
        changes.note(path, format!("removed the unsupported format `{format}`"));
    }
    keep_only(map, path, ALLOWED, changes);
}
