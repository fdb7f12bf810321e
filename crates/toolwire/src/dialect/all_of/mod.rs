//! `allOf` merged into the node that holds it, for the dialects that have no `allOf` or close
//! each object they see: the branches' references are inlined, nested `allOf`s flattened, and
//! the parts combined into one schema that accepts exactly what they all accept (see
//! `combine`). When no such schema can be written, the `allOf` is kept and the dialect decides.

mod combine;

use serde_json::{Map, Value, json};

use super::refs::{Budget, resolve};
use super::walk::{MAX_DEPTH, is_object_schema};
use super::{Changes, CompileError};

/// What resolving the references of branches needs.
pub(super) struct Refs<'a, 'b> {
    /// The schema as written, which references point into.
    pub(super) source: &'a Value,
    pub(super) budget: &'b mut Budget,
    /// The references being inlined around the node: a branch inlining one again recurses.
    pub(super) inlining: &'b [String],
}

/// What became of a node's `allOf`.
#[derive(Debug)]
pub(super) enum Outcome {
    /// The node has no `allOf`: there was none, or it was merged, inlining these references.
    Merged(Vec<String>),
    /// The `allOf` stays as it was, for this reason.
    Kept(String),
}

/// Merges the `allOf` of `map` into `map`, noting it, when one schema can say what it says.
///
/// # Errors
///
/// Inlining the branches' references would pass the inlining budget.
pub(super) fn merge(
    map: &mut Map<String, Value>,
    path: &str,
    refs: Refs<'_, '_>,
    changes: &mut Changes,
) -> Result<Outcome, CompileError> {
    let Some(Value::Array(branches)) = map.get("allOf") else {
        return Ok(Outcome::Merged(Vec::new()));
    };
    let mut parent = map.clone();
    parent.remove("allOf");
    let beside = parent.remove("$ref");
    let mut parts =
        Parts { refs, path, sources: vec![parent], inlined: Vec::new(), chain: Vec::new() };
    for branch in
        beside.iter().map(|reference| json!({"$ref": reference})).chain(branches.iter().cloned())
    {
        match parts.expand(&branch, 0) {
            Ok(()) => {}
            Err(Refusal::Why(why)) => return Ok(Outcome::Kept(why)),
            Err(Refusal::Error(error)) => return Err(error),
        }
    }
    let count = branches.len();
    let merged = match combine::combine(parts.sources) {
        Ok(merged) => merged,
        Err(why) => return Ok(Outcome::Kept(why)),
    };
    *map = merged;
    for reference in &parts.inlined {
        changes.note(path, format!("inlined `$ref` {reference} of an `allOf` branch"));
    }
    let branches =
        if count == 1 { "the one branch".into() } else { format!("the {count} branches") };
    changes.note(path, format!("merged {branches} of `allOf` into one schema"));
    Ok(Outcome::Merged(parts.inlined))
}

/// Whether `map` has a `$ref` and, beside it, keywords that constrain values: together they
/// mean what an `allOf` of the two would.
pub(super) fn constrains_beside_ref(map: &Map<String, Value>) -> bool {
    let constrains = |key: &String| key != "$ref" && !combine::ANNOTATIONS.contains(&key.as_str());
    map.contains_key("$ref") && map.keys().any(constrains)
}

/// Adds to `map`, whose `$ref` pointed at `target`, what `target` says, as JSON Schema reads
/// a reference beside other keywords: both at once, combined into one schema. When they cannot
/// be, each keyword of `target` that `map` lacks is added, and the reason is returned.
pub(super) fn absorb(map: &mut Map<String, Value>, target: &Map<String, Value>) -> Option<String> {
    match combine::combine(vec![map.clone(), target.clone()]) {
        Ok(merged) => {
            *map = merged;
            None
        }
        Err(why) => {
            for (key, value) in target {
                map.entry(key.clone()).or_insert_with(|| value.clone());
            }
            Some(why)
        }
    }
}

/// How many of the parts of the `allOf` of `map` (the rest of `map`, and each branch, or what
/// its `$ref` points at) describe objects: the ones a dialect that closes objects would close
/// one by one.
pub(super) fn objects(map: &Map<String, Value>, source: &Value) -> usize {
    let describes_object = |branch: &Value| {
        let target = branch.get("$ref").and_then(Value::as_str).and_then(|r| resolve(source, r));
        target.unwrap_or(branch).as_object().is_some_and(is_object_schema)
    };
    let branches = map.get("allOf").and_then(Value::as_array).map(Vec::as_slice);
    let objects = branches.unwrap_or_default().iter().filter(|b| describes_object(b)).count();
    objects + usize::from(is_object_schema(map))
}

/// Why an `allOf` cannot be merged.
enum Refusal {
    /// It says something one schema cannot.
    Why(String),
    /// Inlining would pass a limit.
    Error(CompileError),
}

impl From<CompileError> for Refusal {
    fn from(error: CompileError) -> Self {
        Self::Error(error)
    }
}

fn why(text: impl Into<String>) -> Refusal {
    Refusal::Why(text.into())
}

/// The parts an `allOf` is made of, the node's own keywords first.
struct Parts<'a, 'b, 'p> {
    refs: Refs<'a, 'b>,
    path: &'p str,
    sources: Vec<Map<String, Value>>,
    /// The references inlined, in order.
    inlined: Vec<String>,
    /// The references whose targets are being expanded, to stop at recursion.
    chain: Vec<String>,
}

impl Parts<'_, '_, '_> {
    /// Adds the parts `branch` stands for: its own keywords, what its `$ref` points at, and
    /// the branches of its own `allOf`.
    fn expand(&mut self, branch: &Value, depth: usize) -> Result<(), Refusal> {
        if depth > MAX_DEPTH {
            return Err(why(format!("its branches nest deeper than {MAX_DEPTH} levels")));
        }
        let mut own = match branch {
            Value::Bool(true) => return Ok(()),
            Value::Bool(false) => return Err(why("a branch is `false`, which no value passes")),
            Value::Object(map) => map.clone(),
            _ => return Err(why("a branch is not a schema")),
        };
        if own.contains_key("$defs") || own.contains_key("definitions") {
            return Err(why("a branch has definitions of its own"));
        }
        if let Some(reference) = own.remove("$ref") {
            self.follow(&reference, depth)?;
        }
        if let Some(nested) = own.remove("allOf") {
            let Value::Array(nested) = nested else {
                return Err(why("a nested `allOf` is not a list"));
            };
            for branch in &nested {
                self.expand(branch, depth + 1)?;
            }
        }
        self.sources.push(own);
        Ok(())
    }

    /// Adds the parts of what `reference` points at.
    fn follow(&mut self, reference: &Value, depth: usize) -> Result<(), Refusal> {
        let Value::String(reference) = reference else {
            return Err(why("a branch's `$ref` is not a string"));
        };
        let recursive = reference == "#"
            || self.refs.inlining.contains(reference)
            || self.chain.contains(reference);
        if recursive {
            return Err(why(format!("a branch's `$ref` {reference} is recursive")));
        }
        let Some(target) = resolve(self.refs.source, reference) else {
            return Err(why(format!(
                "a branch's `$ref` {reference} points at no schema in this one"
            )));
        };
        self.refs.budget.spend(target, self.path, reference)?;
        self.inlined.push(reference.clone());
        self.chain.push(reference.clone());
        self.expand(target, depth + 1)?;
        self.chain.pop();
        Ok(())
    }
}
