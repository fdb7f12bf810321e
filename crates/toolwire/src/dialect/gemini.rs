//! Gemini `parameters`: the OpenAPI 3.0 subset. References are inlined (recursion cannot be
//! expressed), types are upper-case with `nullable` for null, `oneOf` becomes `anyOf`,
//! `const` becomes a one-value `enum`, and other keywords move into the description.

use serde_json::{Map, Value, json};

use super::walk::{
    children, definitions, extend_any_of, guard, keep_only, local_name, unify_branches,
};
use super::{Changes, CompileError, Dialect};

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

pub(super) fn parameters(schema: &Value, changes: &mut Changes) -> Result<Value, CompileError> {
    let mut root = schema.clone();
    let defs = definitions(&root);
    if let Some(map) = root.as_object_mut() {
        for key in ["$schema", "$defs", "definitions"] {
            if map.remove(key).is_some() {
                changes.note("", format!("removed `{key}`"));
            }
        }
    }
    let mut pass = Gemini { defs, changes, inlining: Vec::new() };
    pass.visit(&mut root, "", 0)?;
    Ok(root)
}

/// The error for a reference Gemini's `parameters` cannot hold.
fn recursive(path: &str, reference: &str) -> CompileError {
    let problem = format!(
        "`$ref` {reference} is recursive, which `parameters` cannot express; use `parametersJsonSchema`"
    );
    CompileError::new(DIALECT, path, problem)
}

struct Gemini<'a> {
    defs: Map<String, Value>,
    changes: &'a mut Changes,
    inlining: Vec<String>,
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

    /// Replaces a `$ref` by its target; siblings win over the target's keywords.
    fn inline(&mut self, map: &mut Map<String, Value>, path: &str) -> Result<bool, CompileError> {
        let Some(Value::String(reference)) = map.remove("$ref") else { return Ok(false) };
        if reference == "#" {
            return Err(recursive(path, &reference));
        }
        let name = local_name(&reference).map(str::to_owned);
        let target = name.as_ref().and_then(|name| self.defs.get(name)).cloned();
        let (Some(name), Some(Value::Object(target))) = (name, target) else {
            return Err(CompileError::new(
                DIALECT,
                path,
                format!("`$ref` {reference} is not a local definition"),
            ));
        };
        if self.inlining.contains(&name) {
            return Err(recursive(path, &reference));
        }
        for (key, value) in target {
            map.entry(key).or_insert(value);
        }
        self.changes.note(path, format!("inlined `$ref` {reference}"));
        self.inlining.push(name);
        Ok(true)
    }

    fn rewrite(&mut self, map: &mut Map<String, Value>, path: &str) {
        unify_branches(map, path, self.changes);
        if let Some(value) = map.remove("const") {
            map.insert("enum".into(), json!([value]));
            self.changes.note(path, "`const` became a one-value `enum`");
        }
        if map.remove("additionalProperties").is_some() {
            self.changes
                .note(path, "removed `additionalProperties`, which `parameters` does not take");
        }
        self.null_branch(map, path);
        self.types(map, path);
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
