//! Limits on the size and nesting of arguments, checked before the schema sees them.
//!
//! The check walks the arguments once, recursing no deeper than the depth limit, so a value
//! nested a million levels deep is rejected without overflowing the stack. A rejected value
//! is also torn down without recursion.

use serde_json::Value;

/// How large and how deeply nested a call's arguments may be. It is `#[non_exhaustive]`:
/// start from [`DEFAULT`](Self::DEFAULT) and change what differs.
///
/// ```
/// use toolwire::ArgumentLimits;
///
/// let limits = ArgumentLimits::DEFAULT.with_max_depth(8).with_max_bytes(64 * 1024);
/// assert_eq!((limits.max_depth, limits.max_bytes), (8, 64 * 1024));
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[non_exhaustive]
pub struct ArgumentLimits {
    /// The deepest nesting of arrays and objects accepted; the arguments object itself is
    /// level 1. Default: 64. Values above [`ArgumentLimits::DEPTH_CEILING`] count as that
    /// ceiling, so the check itself never risks the stack.
    pub max_depth: usize,
    /// The largest accepted size, in bytes of compact JSON (estimated: numbers count as 8).
    /// Default: 1 MiB.
    pub max_bytes: usize,
}

impl ArgumentLimits {
    /// The defaults: 64 levels and 1 MiB.
    pub const DEFAULT: Self = Self { max_depth: 64, max_bytes: 1024 * 1024 };

    /// The deepest nesting any limit allows.
    pub const DEPTH_CEILING: usize = 512;

    /// These limits, nesting at most `max_depth` levels.
    pub const fn with_max_depth(mut self, max_depth: usize) -> Self {
        self.max_depth = max_depth;
        self
    }

    /// These limits, at most `max_bytes` bytes large.
    pub const fn with_max_bytes(mut self, max_bytes: usize) -> Self {
        self.max_bytes = max_bytes;
        self
    }
}

impl Default for ArgumentLimits {
    fn default() -> Self {
        Self::DEFAULT
    }
}

/// Checks `args` against `limits`; the error names the limit that was passed and the JSON
/// pointer where it was passed.
pub(crate) fn check_limits(args: &Value, limits: ArgumentLimits) -> Result<(), String> {
    let max_depth = limits.max_depth.min(ArgumentLimits::DEPTH_CEILING);
    let mut budget = limits.max_bytes;
    if fits(args, max_depth, &mut budget) {
        return Ok(());
    }
    // Only arguments past a limit pay for the walk that says where.
    let mut walk = Walk { limits: ArgumentLimits { max_depth, ..limits }, bytes: 0 };
    walk.visit(args, 1).map_err(|mut exceeded| {
        exceeded.path.reverse();
        let path = exceeded.path.concat();
        let at = if path.is_empty() { "(root)".into() } else { super::compile::clip_path(&path) };
        format!("{at}: {}", exceeded.message)
    })
}

/// Whether `value` nests no deeper than `levels` and takes no more than `budget` bytes, which
/// it spends. The recursion stops at `levels`, which is at most the depth ceiling.
fn fits(value: &Value, levels: usize, budget: &mut usize) -> bool {
    let Some(left) = budget.checked_sub(shallow_size(value)) else { return false };
    *budget = left;
    match value {
        Value::Array(items) => {
            levels > 0 && items.iter().all(|item| fits(item, levels - 1, budget))
        }
        Value::Object(map) => {
            levels > 0
                && map.iter().all(|(key, item)| match budget.checked_sub(entry_size(key)) {
                    Some(left) => {
                        *budget = left;
                        fits(item, levels - 1, budget)
                    }
                    None => false,
                })
        }
        _ => true,
    }
}

/// A passed limit; `path` holds pointer segments innermost first.
struct Exceeded {
    path: Vec<String>,
    message: String,
}

struct Walk {
    limits: ArgumentLimits,
    bytes: usize,
}

impl Walk {
    fn visit(&mut self, value: &Value, depth: usize) -> Result<(), Box<Exceeded>> {
        self.add(shallow_size(value))?;
        match value {
            Value::Array(items) => {
                self.enter(depth)?;
                for (index, item) in items.iter().enumerate() {
                    self.visit(item, depth + 1).map_err(|e| e.under(index.to_string()))?;
                }
                Ok(())
            }
            Value::Object(map) => {
                self.enter(depth)?;
                for (key, item) in map {
                    self.add(entry_size(key))?;
                    self.visit(item, depth + 1)
                        .map_err(|e| e.under(crate::pointer::escape(key).into_owned()))?;
                }
                Ok(())
            }
            _ => Ok(()),
        }
    }

    fn enter(&self, depth: usize) -> Result<(), Box<Exceeded>> {
        if depth <= self.limits.max_depth {
            return Ok(());
        }
        Err(Exceeded::new(format!("nested deeper than {} levels", self.limits.max_depth)))
    }

    fn add(&mut self, bytes: usize) -> Result<(), Box<Exceeded>> {
        self.bytes = self.bytes.saturating_add(bytes);
        if self.bytes <= self.limits.max_bytes {
            return Ok(());
        }
        Err(Exceeded::new(format!("arguments are larger than {} bytes", self.limits.max_bytes)))
    }
}

impl Exceeded {
    fn new(message: String) -> Box<Self> {
        Box::new(Self { path: Vec::new(), message })
    }

    fn under(mut self: Box<Self>, segment: String) -> Box<Self> {
        self.path.push(format!("/{segment}"));
        self
    }
}

/// The bytes an object's key takes in compact JSON: the quoted key and its colon.
fn entry_size(key: &str) -> usize {
    key.len() + 3
}

/// The bytes a value takes in compact JSON, not counting its children.
fn shallow_size(value: &Value) -> usize {
    match value {
        Value::Null | Value::Bool(_) => 5,
        Value::Number(_) => 8,
        Value::String(s) => s.len() + 2,
        Value::Array(items) => items.len() + 2,
        Value::Object(map) => map.len() + 2,
    }
}

/// Drops `value` without recursion, so arbitrarily deep values cannot overflow the stack.
///
/// Only containers nested in containers are set aside, so a flat value allocates nothing.
pub(crate) fn drop_iteratively(value: Value) {
    let mut stack = Vec::new();
    set_aside_children(value, &mut stack);
    while let Some(value) = stack.pop() {
        set_aside_children(value, &mut stack);
    }
}

/// Arguments held by a prepared call: dropped without recursion if the call is never run.
#[derive(Debug, Default)]
pub(crate) struct HeldValue(Value);

impl HeldValue {
    pub(crate) fn new(value: Value) -> Self {
        Self(value)
    }

    /// The value, handed on to whoever runs the call.
    pub(crate) fn take(mut self) -> Value {
        std::mem::take(&mut self.0)
    }
}

impl Drop for HeldValue {
    fn drop(&mut self) {
        // Never run: the arguments may be nested too deeply to drop recursively.
        drop_iteratively(std::mem::take(&mut self.0));
    }
}

/// Drops `value`'s scalar children at once and moves its container children to `stack`.
fn set_aside_children(value: Value, stack: &mut Vec<Value>) {
    let is_container = |v: &Value| matches!(v, Value::Array(_) | Value::Object(_));
    match value {
        Value::Array(items) => stack.extend(items.into_iter().filter(is_container)),
        Value::Object(map) => stack.extend(map.into_iter().map(|(_, v)| v).filter(is_container)),
        _ => {}
    }
}
