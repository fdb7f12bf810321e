//! Gemini `parameters`: the OpenAPI 3.0 subset. References are inlined (recursion cannot be
//! expressed), types are upper-case with `nullable` for null, `oneOf` becomes `anyOf`,
//! `const` becomes a one-value `enum` (see `values`), boolean subschemas become objects (see
//! `booleans`), `required` keeps only the names a node defines (see `required`), objects
//! without properties and arrays without items are made acceptable, a schema without
//! parameters compiles to `null`, and other keywords move into the description.

mod booleans;
mod required;
mod values;

use serde_json::{Map, Value, json};

use super::all_of::{self, Outcome, Refs};
use super::refs::{Budget, resolve};
use super::tuples::open_tuples;
use super::walk::{children, describe, extend_any_of, guard, keep_only, unify_branches};
use super::{Changes, CompileError, CompileErrorKind, Dialect};

const DIALECT: Dialect = Dialect::Gemini;

/// The keywords Gemini's `parameters` accepts.
const ALLOWED: &[&str] = &[
    "type",
    "format",
    "title",
    "description",
    "nullable",
    "enum",
    "items",
    "minItems",
    "maxItems",
    "minLength",
    "maxLength",
    "pattern",
    "minimum",
    "maximum",
    "properties",
    "required",
    "minProperties",
    "maxProperties",
    "propertyOrdering",
    "anyOf",
    "default",
    "example",
];

/// `schema` as Gemini's `parameters`, or `null` when it declares no parameters Gemini can
/// take: a function without parameters goes without the field.
pub(super) fn parameters(schema: &Value, changes: &mut Changes) -> Result<Value, CompileError> {
    let mut root = schema.clone();
    if let Some(map) = root.as_object_mut() {
        for key in ["$schema", "$defs", "definitions"] {
            if map.remove(key).is_some() {
                changes.note("", format!("removed `{key}`"));
            }
        }
    }
    let mut pass =
        Gemini { source: schema, changes, inlining: Vec::new(), budget: Budget::new(DIALECT) };
    pass.visit(&mut root, "", 0)?;
    if declares_nothing(&root) {
        pass.changes.note(
            "",
            "no parameters are left, and Gemini refuses an OBJECT without properties: the \
             function goes without `parameters` (the compiled schema is `null`)",
        );
        return Ok(Value::Null);
    }
    Ok(root)
}

/// Whether the compiled root declares no parameters: no properties and no branches.
fn declares_nothing(root: &Value) -> bool {
    root.get("properties").is_none() && root.get("anyOf").is_none()
}

/// The error for a reference Gemini's `parameters` cannot hold.
fn recursive(path: &str, reference: &str) -> CompileError {
    let problem = format!(
        "`$ref` {reference} is recursive, which `parameters` cannot express; use `parametersJsonSchema`"
    );
    CompileError::new(DIALECT, CompileErrorKind::Recursive, path, problem)
}

struct Gemini<'a> {
    /// The schema as written, which references point into.
    source: &'a Value,
    changes: &'a mut Changes,
    /// The references being inlined, to stop at recursion.
    inlining: Vec<String>,
    budget: Budget,
}

impl Gemini<'_> {
    fn visit(&mut self, node: &mut Value, path: &str, depth: usize) -> Result<(), CompileError> {
        guard(DIALECT, depth, path)?;
        let Value::Object(map) = node else { return Ok(()) };
        // Rewriting can expose another reference (a nullable `$ref` loses its `anyOf`), so
        // inline until none is left.
        let depth_before = self.inlining.len();
        loop {
            self.inline(map, path)?;
            self.merge(map, path)?;
            self.rewrite(map, path);
            if !map.contains_key("$ref") {
                break;
            }
        }
        keep_only(map, path, ALLOWED, self.changes);
        children(map, path, |child, at| self.visit(child, at, depth + 1))?;
        self.inlining.truncate(depth_before);
        Ok(())
    }

    /// Replaces a `$ref` by its target, any local JSON pointer, combined with the keywords
    /// beside it (see `all_of::absorb`).
    fn inline(&mut self, map: &mut Map<String, Value>, path: &str) -> Result<bool, CompileError> {
        let Some(Value::String(reference)) = map.remove("$ref") else { return Ok(false) };
        if reference == "#" || self.inlining.contains(&reference) {
            return Err(recursive(path, &reference));
        }
        let Some(whole @ Value::Object(target)) = resolve(self.source, &reference) else {
            let problem = format!("`$ref` {reference} does not point at a schema in this one");
            return Err(CompileError::new(DIALECT, CompileErrorKind::BadReference, path, problem));
        };
        self.budget.spend(whole, path, &reference)?;
        if let Some(why) = all_of::absorb(map, target) {
            let note =
                format!("the keywords beside `$ref` {reference} won where they clash ({why})");
            self.changes.note(path, note);
        }
        self.changes.note(path, format!("inlined `$ref` {reference}"));
        self.inlining.push(reference);
        Ok(true)
    }

    /// Merges an `allOf`, which `parameters` lacks, into its node; one that cannot be merged
    /// moves into the description.
    fn merge(&mut self, map: &mut Map<String, Value>, path: &str) -> Result<(), CompileError> {
        let refs = Refs { source: self.source, budget: &mut self.budget, inlining: &self.inlining };
        match all_of::merge(map, path, refs, self.changes)? {
            Outcome::Merged(inlined) => self.inlining.extend(inlined),
            Outcome::Kept(why) => {
                if let Some(branches) = map.remove("allOf") {
                    describe(map, &format!("allOf: {branches}"));
                }
                let note = format!(
                    "removed the `allOf`, which cannot be made one schema ({why}); kept in the \
                     description"
                );
                self.changes.note(path, note);
            }
        }
        Ok(())
    }

    fn rewrite(&mut self, map: &mut Map<String, Value>, path: &str) {
        required::constraints(map, path, self.changes);
        unify_branches(map, path, self.changes);
        open_tuples(map, path, self.changes);
        booleans::booleans(map, path, self.changes);
        values::enums(map, path, self.changes);
        if map.remove("additionalProperties").is_some() {
            self.changes
                .note(path, "removed `additionalProperties`, which `parameters` does not take");
        }
        self.null_branch(map, path);
        self.types(map, path);
        self.containers(map, path);
        required::undefined(map, path, self.changes);
    }

    /// An object with empty `properties`, which Gemini refuses, loses them (at the root, that
    /// leaves no parameters: see [`parameters`]); an array gets the `items` Gemini requires,
    /// `{}` when it had none.
    fn containers(&mut self, map: &mut Map<String, Value>, path: &str) {
        let empty = |value: Option<&Value>| match value {
            Some(Value::Object(map)) => map.is_empty(),
            Some(Value::Array(list)) => list.is_empty(),
            _ => false,
        };
        if empty(map.get("properties")) {
            map.remove("properties");
            if empty(map.get("required")) {
                map.remove("required");
            }
            self.changes.note(path, "removed the empty `properties`, which Gemini refuses");
        }
        let is_array = map.get("type").and_then(Value::as_str) == Some("ARRAY");
        if is_array && !map.contains_key("items") {
            map.insert("items".into(), json!({}));
            self.changes.note(path, "added `items: {}` (any item), which Gemini requires");
        }
    }

    /// An `anyOf` with a `{"type": "null"}` branch becomes `nullable`; a single remaining
    /// branch is merged into its parent.
    fn null_branch(&mut self, map: &mut Map<String, Value>, path: &str) {
        let Some(Value::Array(branches)) = map.get_mut("anyOf") else { return };
        let before = branches.len();
        branches.retain(|branch| branch.get("type").and_then(Value::as_str) != Some("null"));
        if branches.len() == before {
            return;
        }
        map.insert("nullable".into(), Value::Bool(true));
        self.changes.note(path, "a `null` branch of `anyOf` became `nullable: true`");
        if let Some(Value::Array(mut rest)) = map.remove("anyOf") {
            match (rest.len(), rest.pop()) {
                (1, Some(Value::Object(only))) => {
                    for (key, value) in only {
                        map.entry(key).or_insert(value);
                    }
                }
                (_, last) => {
                    rest.extend(last);
                    map.insert("anyOf".into(), Value::Array(rest));
                }
            }
        }
    }

    /// One upper-case type; `null` in a type list becomes `nullable`, several other types an
    /// `anyOf`.
    fn types(&mut self, map: &mut Map<String, Value>, path: &str) {
        match map.remove("type") {
            Some(Value::String(kind)) => {
                map.insert("type".into(), Value::String(kind.to_uppercase()));
            }
            Some(Value::Array(kinds)) => {
                let mut named: Vec<String> =
                    kinds.iter().filter_map(Value::as_str).map(str::to_uppercase).collect();
                if named.iter().any(|k| k == "NULL") {
                    named.retain(|k| k != "NULL");
                    map.insert("nullable".into(), Value::Bool(true));
                }
                match named.len() {
                    0 => {
                        map.insert("type".into(), json!("NULL"));
                    }
                    1 => {
                        map.insert("type".into(), Value::String(named.remove(0)));
                    }
                    _ => {
                        let branches = named.into_iter().map(|k| json!({"type": k}));
                        extend_any_of(map, branches);
                    }
                }
                self.changes
                    .note(path, format!("the type list {} became one type", Value::Array(kinds)));
            }
            Some(other) => {
                map.insert("type".into(), other);
            }
            None => {}
        }
    }
}
