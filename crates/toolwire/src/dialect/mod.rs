//! Per-provider schema dialects: one canonical parameter schema compiled into what each
//! provider accepts, with a report of every change that had to be made.
//!
//! ```
//! use serde_json::json;
//! use toolwire::dialect::{Dialect, compile};
//!
//! let schema = json!({
//!     "type": "object",
//!     "properties": {"city": {"type": "string", "minLength": 1}, "days": {"type": "integer"}},
//!     "required": ["city"]
//! });
//! let strict = compile(&schema, Dialect::OpenAiStrict).unwrap();
//! assert_eq!(strict.schema["additionalProperties"], false);
//! assert_eq!(strict.schema["required"], json!(["city", "days"]));
//! assert_eq!(strict.schema["properties"]["days"]["type"], json!(["integer", "null"]));
//! for change in &strict.changes {
//!     println!("{change}");
//! }
//! ```

mod all_of;
mod anthropic;
mod cache;
mod error;
mod gemini;
mod openai;
mod origin;
mod refs;
mod tuples;
mod walk;

use std::fmt;

use serde_json::Value;

pub(crate) use cache::Dialects;
pub use error::{CompileError, CompileErrorKind};

/// A provider's schema dialect.
#[non_exhaustive]
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Dialect {
    /// OpenAI structured outputs (`strict: true`): closed objects, every property required
    /// (optional ones nullable), a subset of keywords, and size limits.
    OpenAiStrict,
    /// Anthropic `input_schema`: JSON Schema as it is.
    Anthropic,
    /// Anthropic with `strict: true`: closed objects and its supported subset, without
    /// recursive references and with at most 24 optional properties.
    AnthropicStrict,
    /// Gemini `parameters`: the OpenAPI 3.0 subset, with upper-case types, `nullable`, and no
    /// references. A schema that declares no parameters compiles to `null`: Gemini refuses an
    /// `OBJECT` without properties, and a function without parameters leaves `parameters`
    /// unset.
    Gemini,
    /// MCP `inputSchema`: JSON Schema with an object root.
    Mcp,
}

/// A schema compiled for one dialect, and what had to change.
#[derive(Debug, Clone, PartialEq)]
pub struct Compiled {
    /// The schema the provider accepts; `null` for [`Dialect::Gemini`] when there are no
    /// parameters to send (leave `parameters` unset).
    pub schema: Value,
    /// Every change made, in the order made; empty when the schema passed as it was.
    pub changes: Vec<Change>,
}

/// One change a compilation made.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Change {
    /// Where, as a JSON pointer into the original schema (`""` for the root). It always
    /// resolves there: a change inside an inlined `$ref` is reported in the definition it
    /// points at, one inside a `oneOf` keeps `oneOf`, and one inside a node the compilation
    /// made is reported at the nearest node that was written.
    pub path: String,
    /// What was done, and why.
    pub description: String,
}

impl fmt::Display for Change {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let at = if self.path.is_empty() { "(root)" } else { &self.path };
        write!(f, "{at}: {}", self.description)
    }
}

/// Compiles `schema` for `dialect`.
///
/// # Errors
///
/// A [`CompileError`] naming the path of what the dialect cannot express; its
/// [`kind`](CompileError::kind) says which: a root that is not an object schema, a construct
/// the dialect lacks (such as a node without a type in OpenAI's strict mode), a provider
/// limit passed, a recursive reference (Gemini, Anthropic strict), a reference that points
/// nowhere, or references that inlined would make the schema too large.
pub fn compile(schema: &Value, dialect: Dialect) -> Result<Compiled, CompileError> {
    let root_is_object = schema.get("type").and_then(Value::as_str) == Some("object");
    if !root_is_object {
        return Err(CompileError::new(
            dialect,
            CompileErrorKind::NotObjectRoot,
            "/type",
            "the root must be an object schema",
        ));
    }
    let mut changes = Changes::default();
    let compiled = match dialect {
        Dialect::OpenAiStrict => openai::strict(schema, &mut changes),
        Dialect::AnthropicStrict => anthropic::strict(schema, &mut changes),
        Dialect::Gemini => gemini::parameters(schema, &mut changes),
        Dialect::Anthropic | Dialect::Mcp => Ok(schema.clone()),
    };
    let compiled = compiled.map_err(|error| {
        let path = origin::locate(schema, error.path());
        error.at(path)
    })?;
    let changes = changes.0.into_iter().map(|change| Change {
        path: origin::locate(schema, &change.path),
        description: change.description,
    });
    Ok(Compiled { schema: compiled, changes: changes.collect() })
}

/// The changes of one compilation, as they are made.
#[derive(Debug, Default)]
pub(crate) struct Changes(Vec<Change>);

impl Changes {
    pub(crate) fn note(&mut self, path: &str, description: impl Into<String>) {
        self.0.push(Change { path: path.to_owned(), description: description.into() });
    }
}
