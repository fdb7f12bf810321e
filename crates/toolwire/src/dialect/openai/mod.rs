//! OpenAI strict mode: closed objects, every property required (optional ones nullable),
//! `oneOf` as `anyOf`, `allOf` merged into one schema, references with siblings inlined,
//! unsupported keywords moved into the description, and the size limits checked.

mod limits;
mod nullable;

use serde_json::{Map, Value, json};

use super::all_of::{self, Outcome, Refs};
use super::refs::{Budget, resolve};
use super::tuples::open_tuples;
use super::walk::{self, children, guard, is_object_schema, keep_only, unify_branches};
use super::{Changes, CompileError, CompileErrorKind, Dialect};
use limits::Totals;
use nullable::make_nullable;

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

/// The keywords of which strict mode needs one on every node.
const TYPED: [&str; 5] = ["type", "anyOf", "enum", "const", "$ref"];

/// The string formats strict mode accepts.
const FORMATS: &[&str] =
    &["date-time", "time", "date", "duration", "email", "hostname", "ipv4", "ipv6", "uuid"];

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
        let Value::Object(map) = node else { return Err(typeless(path)) };
        let inlining = self.inlining.len();
        self.inline(map, path)?;
        self.merge(map, path)?;
        self.rewrite(map, path);
        check_typed(map, path)?;
        self.totals.count(map, path)?;
        let object = is_object_schema(map);
        let objects = objects + usize::from(object);
        self.totals.object_depth = self.totals.object_depth.max(objects);
        children(map, path, |child, at| self.visit(child, at, depth + 1, objects))?;
        if object {
            close(map, path, self.changes);
        }
        self.inlining.truncate(inlining);
        Ok(())
    }

    /// Merges an `allOf`, which strict mode lacks, into its node. One that cannot be merged
    /// leaves for the description, unless that leaves the node without a type.
    fn merge(&mut self, map: &mut Map<String, Value>, path: &str) -> Result<(), CompileError> {
        let refs = Refs { source: self.source, budget: &mut self.budget, inlining: &self.inlining };
        match all_of::merge(map, path, refs, self.changes)? {
            Outcome::Merged(inlined) => self.inlining.extend(inlined),
            Outcome::Kept(why) => {
                let typed =
                    TYPED.iter().any(|key| map.contains_key(*key)) || map.contains_key("oneOf");
                if !typed {
                    let problem = format!(
                        "`allOf` cannot be made one schema ({why}), and strict mode has no `allOf`"
                    );
                    return Err(CompileError::new(
                        DIALECT,
                        CompileErrorKind::Unsupported,
                        path,
                        problem,
                    ));
                }
                self.changes.note(path, format!("`allOf` could not be made one schema ({why})"));
            }
        }
        Ok(())
    }

    /// Inlines a local `$ref` that has sibling keywords.
    fn inline(&mut self, map: &mut Map<String, Value>, path: &str) -> Result<(), CompileError> {
        let Some(reference) = map.get("$ref").and_then(Value::as_str).map(str::to_owned) else {
            return Ok(());
        };
        if map.len() == 1 {
            return Ok(());
        }
        if reference == "#" || self.inlining.contains(&reference) {
            map.retain(|key, _| key == "$ref");
            self.changes.note(
                path,
                format!("dropped the keywords beside the recursive `$ref` to {reference}"),
            );
            return Ok(());
        }
        let Some(whole @ Value::Object(target)) = resolve(self.source, &reference) else {
            return Ok(());
        };
        self.budget.spend(whole, path, &reference)?;
        map.remove("$ref");
        if let Some(why) = all_of::absorb(map, target) {
            let note =
                format!("the keywords beside `$ref` {reference} won where they clash ({why})");
            self.changes.note(path, note);
        }
        self.changes.note(path, format!("inlined `$ref` {reference}, which had sibling keywords"));
        self.inlining.push(reference);
        Ok(())
    }

    /// `oneOf` as `anyOf`, unknown formats and keywords moved out.
    fn rewrite(&mut self, map: &mut Map<String, Value>, path: &str) {
        unify_branches(map, path, self.changes);
        open_tuples(map, path, self.changes);
        let format = map.get("format").and_then(Value::as_str).map(str::to_owned);
        if let Some(format) = format.filter(|f| !FORMATS.contains(&f.as_str())) {
            map.remove("format");
            self.changes.note(path, format!("removed the unsupported format `{format}`"));
        }
        keep_only(map, path, ALLOWED, self.changes);
    }
}

/// The error for a node that names no type, which strict mode needs on every node.
fn typeless(path: &str) -> CompileError {
    let problem = "the schema has no `type` (nor `anyOf`, `enum`, `const` or `$ref`), which \
                   strict mode needs";
    CompileError::new(DIALECT, CompileErrorKind::Unsupported, path, problem)
}

/// Fails when `map` names no type, or is a root `anyOf`, which strict mode forbids.
fn check_typed(map: &Map<String, Value>, path: &str) -> Result<(), CompileError> {
    if path.is_empty() && map.contains_key("anyOf") {
        let problem = "the root must not be an `anyOf`";
        return Err(CompileError::new(DIALECT, CompileErrorKind::NotObjectRoot, path, problem));
    }
    let typed = TYPED.iter().any(|key| map.contains_key(*key));
    if typed { Ok(()) } else { Err(typeless(path)) }
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
