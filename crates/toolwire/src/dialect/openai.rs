//! OpenAI strict mode: closed objects, every property required (optional ones nullable),
//! `oneOf` as `anyOf`, references with siblings inlined, unsupported keywords moved into the
//! description, and the size limits checked.

use serde_json::{Map, Value, json};

use super::refs::{Budget, resolve};
use super::walk::{
    self, children, extend_any_of, guard, is_object_schema, keep_only, unify_branches,
};
use super::{Changes, CompileError, CompileErrorKind, Dialect};

const DIALECT: Dialect = Dialect::OpenAiStrict;

/// The keywords strict mode accepts.
const ALLOWED: &[&str] = &[
    "type",
    "properties",
    "required",
    "additionalProperties",
    "items",
    "anyOf",
    "enum",
    "const",
    "description",
    "title",
    "$ref",
    "$defs",
    "definitions",
    "pattern",
    "format",
    "multipleOf",
    "maximum",
    "exclusiveMaximum",
    "minimum",
    "exclusiveMinimum",
    "minItems",
    "maxItems",
];

/// The string formats strict mode accepts.
const FORMATS: &[&str] =
    &["date-time", "time", "date", "duration", "email", "hostname", "ipv4", "ipv6", "uuid"];

/// The documented limits (November 2026).
const MAX_PROPERTIES: usize = 5_000;
const MAX_OBJECT_DEPTH: usize = 10;
const MAX_ENUM_VALUES: usize = 1_000;
const MAX_STRING_LENGTH: usize = 120_000;

pub(super) fn strict(schema: &Value, changes: &mut Changes) -> Result<Value, CompileError> {
    let mut root = schema.clone();
    if root.as_object_mut().is_some_and(|map| map.remove("$schema").is_some()) {
        changes.note("", "removed `$schema`");
    }
    let mut pass = Strict {
        source: schema,
        changes,
        inlining: Vec::new(),
        budget: Budget::new(DIALECT),
        totals: Totals::default(),
    };
    pass.visit(&mut root, "", 0, 0)?;
    pass.totals.check()?;
    Ok(root)
}

struct Strict<'a> {
    /// The schema as written, which references point into.
    source: &'a Value,
    changes: &'a mut Changes,
    /// The references being inlined, to stop at recursion.
    inlining: Vec<String>,
    budget: Budget,
    totals: Totals,
}

impl Strict<'_> {
    fn visit(
        &mut self,
        node: &mut Value,
        path: &str,
        depth: usize,
        objects: usize,
    ) -> Result<(), CompileError> {
        guard(DIALECT, depth, path)?;
        let Value::Object(map) = node else { return Ok(()) };
        let inlined = self.inline(map, path)?;
        self.rewrite(map, path);
        self.totals.count(map);
        let object = is_object_schema(map);
        let objects = objects + usize::from(object);
        self.totals.object_depth = self.totals.object_depth.max(objects);
        children(map, path, |child, at| self.visit(child, at, depth + 1, objects))?;
        if object {
            close(map, path, self.changes);
        }
        if inlined {
            self.inlining.pop();
        }
        Ok(())
    }

    /// Inlines a local `$ref` that has sibling keywords; tells whether it did.
    fn inline(&mut self, map: &mut Map<String, Value>, path: &str) -> Result<bool, CompileError> {
        let Some(reference) = map.get("$ref").and_then(Value::as_str).map(str::to_owned) else {
            return Ok(false);
        };
        if map.len() == 1 {
            return Ok(false);
        }
        if reference == "#" || self.inlining.contains(&reference) {
            map.retain(|key, _| key == "$ref");
            self.changes.note(
                path,
                format!("dropped the keywords beside the recursive `$ref` to {reference}"),
            );
            return Ok(false);
        }
        let Some(whole @ Value::Object(target)) = resolve(self.source, &reference) else {
            return Ok(false);
        };
        self.budget.spend(whole, path, &reference)?;
        map.remove("$ref");
        for (key, value) in target {
            map.entry(key.clone()).or_insert_with(|| value.clone());
        }
        self.changes.note(path, format!("inlined `$ref` {reference}, which had sibling keywords"));
        self.inlining.push(reference);
        Ok(true)
    }

    /// `oneOf` as `anyOf`, a lone `allOf` merged, unknown formats and keywords moved out.
    fn rewrite(&mut self, map: &mut Map<String, Value>, path: &str) {
        unify_branches(map, path, self.changes);
        let format = map.get("format").and_then(Value::as_str).map(str::to_owned);
        if let Some(format) = format.filter(|f| !FORMATS.contains(&f.as_str())) {
            map.remove("format");
            self.changes.note(path, format!("removed the unsupported format `{format}`"));
        }
        keep_only(map, path, ALLOWED, self.changes);
    }
}

/// Closes an object: `additionalProperties: false`, and every property required, the
/// optional ones made nullable.
fn close(map: &mut Map<String, Value>, path: &str, changes: &mut Changes) {
    if map.get("additionalProperties") != Some(&Value::Bool(false)) {
        let was = map.insert("additionalProperties".into(), Value::Bool(false));
        let note = match was {
            None => "set `additionalProperties: false`".to_owned(),
            Some(was) => format!("replaced `additionalProperties: {was}` with `false`"),
        };
        changes.note(path, note);
    }
    let required: Vec<String> = match map.get("required") {
        Some(Value::Array(names)) => {
            names.iter().filter_map(Value::as_str).map(str::to_owned).collect()
        }
        _ => Vec::new(),
    };
    let properties = map.entry("properties").or_insert_with(|| json!({}));
    let Value::Object(properties) = properties else { return };
    let mut all = Vec::with_capacity(properties.len());
    for (name, schema) in properties.iter_mut() {
        if !required.contains(name) {
            let at = format!("{path}/properties/{}", walk::escape(name));
            let note = if make_nullable(schema) {
                "required and nullable"
            } else {
                "required (it was already nullable)"
            };
            changes.note(&at, format!("optional property made {note}"));
        }
        all.push(Value::String(name.clone()));
    }
    map.insert("required".into(), Value::Array(all));
}

/// Lets `schema` accept `null`; tells whether it had to change.
pub(super) fn make_nullable(schema: &mut Value) -> bool {
    if allows_null(schema) {
        return false;
    }
    let Value::Object(map) = schema else {
        *schema = json!({"anyOf": [schema.take(), {"type": "null"}]});
        return true;
    };
    let has_any_of = map.contains_key("anyOf");
    match map.get_mut("type") {
        Some(Value::String(kind)) => {
            let kind = Value::String(std::mem::take(kind));
            map.insert("type".into(), json!([kind, "null"]));
            if let Some(Value::Array(values)) = map.get_mut("enum") {
                values.push(Value::Null);
            }
        }
        Some(Value::Array(kinds)) => kinds.push(json!("null")),
        _ if has_any_of => extend_any_of(map, [json!({"type": "null"})]),
        _ => *schema = json!({"anyOf": [schema.take(), {"type": "null"}]}),
    }
    true
}

/// Whether `schema` already accepts `null`.
fn allows_null(schema: &Value) -> bool {
    let null = Value::String("null".into());
    match schema.get("type") {
        Some(Value::String(kind)) if kind == "null" => return true,
        Some(Value::Array(kinds)) if kinds.contains(&null) => return true,
        _ => {}
    }
    schema
        .get("anyOf")
        .and_then(Value::as_array)
        .is_some_and(|branches| branches.iter().any(allows_null))
}

/// What the limits count.
#[derive(Default)]
struct Totals {
    properties: usize,
    enum_values: usize,
    string_length: usize,
    object_depth: usize,
}

impl Totals {
    fn count(&mut self, map: &Map<String, Value>) {
        if let Some(Value::Object(properties)) = map.get("properties") {
            self.properties += properties.len();
            self.string_length += properties.keys().map(String::len).sum::<usize>();
        }
        for key in ["$defs", "definitions"] {
            if let Some(Value::Object(defs)) = map.get(key) {
                self.string_length += defs.keys().map(String::len).sum::<usize>();
            }
        }
        if let Some(Value::Array(values)) = map.get("enum") {
            self.enum_values += values.len();
            self.string_length +=
                values.iter().filter_map(Value::as_str).map(str::len).sum::<usize>();
        }
        if let Some(Value::String(value)) = map.get("const") {
            self.string_length += value.len();
        }
    }

    fn check(&self) -> Result<(), CompileError> {
        let limits = [
            (self.properties, MAX_PROPERTIES, "object properties in all"),
            (self.object_depth, MAX_OBJECT_DEPTH, "levels of object nesting"),
            (self.enum_values, MAX_ENUM_VALUES, "enum values in all"),
            (self.string_length, MAX_STRING_LENGTH, "characters of names and enum values"),
        ];
        for (count, limit, what) in limits {
            if count > limit {
                return Err(CompileError::new(
                    DIALECT,
                    CompileErrorKind::LimitExceeded,
                    "",
                    format!("{count} {what}; the limit is {limit}"),
                ));
            }
        }
        Ok(())
    }
}
