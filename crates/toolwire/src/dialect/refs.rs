//! Local references: resolving them, bounding what inlining them adds, and finding cycles.

use std::collections::HashMap;

use serde_json::Value;

use super::walk::{MAX_DEPTH, subschemas};
use super::{CompileError, CompileErrorKind, Dialect};

/// The most JSON values that inlining references may add to one compiled schema; a few MB.
pub(super) const MAX_INLINED_NODES: usize = 100_000;

/// The value a local reference (`#`, or `#` and a JSON pointer) points at in `root`.
pub(super) fn resolve<'a>(root: &'a Value, reference: &str) -> Option<&'a Value> {
    root.pointer(reference.strip_prefix('#')?)
}

/// What inlining may still add to one compiled schema, in JSON values.
#[derive(Debug)]
pub(super) struct Budget {
    dialect: Dialect,
    left: usize,
}

impl Budget {
    /// The whole budget, [`MAX_INLINED_NODES`], for one compilation to `dialect`.
    pub(super) fn new(dialect: Dialect) -> Self {
        Self { dialect, left: MAX_INLINED_NODES }
    }

    /// Pays for inlining `target` at `path`, or fails when the budget is spent.
    pub(super) fn spend(
        &mut self,
        target: &Value,
        path: &str,
        reference: &str,
    ) -> Result<(), CompileError> {
        let nodes = count_nodes(target, self.left.saturating_add(1));
        self.left = self.left.checked_sub(nodes).ok_or_else(|| {
            let problem = format!(
                "inlining `$ref` {reference} makes the schema grow past {MAX_INLINED_NODES} \
                 inlined values (definitions that refer to each other many times)"
            );
            CompileError::new(self.dialect, CompileErrorKind::TooLarge, path, problem)
        })?;
        Ok(())
    }
}

/// Counts the JSON values in `value`, stopping once past `cap`; without recursion.
fn count_nodes(value: &Value, cap: usize) -> usize {
    let mut stack = vec![value];
    let mut count = 0;
    while let Some(value) = stack.pop() {
        count += 1;
        if count > cap {
            break;
        }
        match value {
            Value::Array(items) => stack.extend(items),
            Value::Object(map) => stack.extend(map.values()),
            _ => {}
        }
    }
    count
}

/// Fails when a reference of `root` leads back to itself, naming where.
pub(super) fn reject_cycles(root: &Value, dialect: Dialect) -> Result<(), CompileError> {
    let mut cycles = Cycles { root, dialect, state: HashMap::new() };
    cycles.state.insert("#".to_owned(), false);
    cycles.visit(root, "", 0)
}

/// A depth-first search over references; `state` is `false` while a reference's target is
/// being searched, `true` once it is known to lead to no cycle.
struct Cycles<'a> {
    root: &'a Value,
    dialect: Dialect,
    state: HashMap<String, bool>,
}

impl Cycles<'_> {
    fn visit(&mut self, node: &Value, path: &str, depth: usize) -> Result<(), CompileError> {
        if depth > MAX_DEPTH {
            let problem = format!("references nest deeper than {MAX_DEPTH} levels");
            return Err(CompileError::new(self.dialect, CompileErrorKind::TooLarge, path, problem));
        }
        let Value::Object(map) = node else { return Ok(()) };
        if let Some(Value::String(reference)) = map.get("$ref") {
            self.follow(reference, path, depth)?;
        }
        for (at, child) in subschemas(map, path) {
            self.visit(child, &at, depth + 1)?;
        }
        Ok(())
    }

    fn follow(&mut self, reference: &str, path: &str, depth: usize) -> Result<(), CompileError> {
        match self.state.get(reference) {
            Some(true) => return Ok(()),
            Some(false) => {
                let problem = format!("`$ref` {reference} is recursive, which is not supported");
                return Err(CompileError::new(
                    self.dialect,
                    CompileErrorKind::Recursive,
                    path,
                    problem,
                ));
            }
            None => {}
        }
        self.state.insert(reference.to_owned(), false);
        if let Some(target) = resolve(self.root, reference) {
            let at = reference.strip_prefix('#').unwrap_or_default();
            self.visit(target, at, depth + 1)?;
        }
        self.state.insert(reference.to_owned(), true);
        Ok(())
    }
}
