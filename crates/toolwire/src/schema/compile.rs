//! A parameter schema compiled once, validating arguments without further allocation.

use std::fmt::{self, Write};

use jsonschema::Validator;
use serde_json::Value;

/// At most this many violations are listed in one failure message.
const MAX_LISTED: usize = 20;

/// A compiled validator for one tool's arguments.
pub(crate) struct CompiledSchema {
    validator: Validator,
}

impl CompiledSchema {
    /// Compiles `schema`; fails with a lowercase reason when a reference cannot be resolved
    /// or a keyword is malformed.
    pub(crate) fn compile(schema: &Value) -> Result<Self, String> {
        jsonschema::validator_for(schema)
            .map(|validator| Self { validator })
            .map_err(|error| error.to_string())
    }

    /// Checks `args`; on failure, lists every violation as `<pointer>: <message>`, one per
    /// line, with `(root)` for the arguments as a whole.
    pub(crate) fn validate(&self, args: &Value) -> Result<(), String> {
        if self.validator.is_valid(args) {
            return Ok(());
        }
        let mut out = String::new();
        for (n, error) in self.validator.iter_errors(args).enumerate() {
            if n == MAX_LISTED {
                out.push_str("\n(more violations not shown)");
                break;
            }
            if n > 0 {
                out.push('\n');
            }
            let path = error.instance_path().to_string();
            let place = if path.is_empty() { "(root)".into() } else { clip_path(&path) };
            let message = error.to_string();
            // Writing to a String cannot fail.
            let _ = write!(out, "{place}: {}", clip(&message));
        }
        Err(out)
    }
}

/// Longest message kept per violation; the validator quotes the offending value, which may
/// be huge.
const MAX_MESSAGE: usize = 300;

/// Longest JSON pointer kept in a message; the keys in it are the model's.
const MAX_PATH: usize = 256;

/// A JSON pointer, cut short when the model chose long keys.
pub(crate) fn clip_path(path: &str) -> std::borrow::Cow<'_, str> {
    crate::record::clip(path, MAX_PATH)
}

/// `message`, cut at a character boundary near [`MAX_MESSAGE`] bytes.
pub(super) fn clip(message: &str) -> std::borrow::Cow<'_, str> {
    crate::record::clip(message, MAX_MESSAGE)
}

impl fmt::Debug for CompiledSchema {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("CompiledSchema").finish_non_exhaustive()
    }
}
