//! Provider wire shapes of a tool definition.
//!
//! Each shape is computed once, when the tool is built, and handed out by reference.

mod anthropic;
mod gemini;
mod mcp;
mod openai;

use serde_json::{Map, Value};

/// A wire format a tool can be described in.
#[non_exhaustive]
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Provider {
    /// OpenAI Chat Completions: `{"type": "function", "function": {..}}`.
    OpenAi,
    /// The flat function shape `{name, description, parameters, strict?}`, as in OpenAI's
    /// legacy `functions` and, with a `type`, the Responses API.
    FlatFunction,
    /// Anthropic Messages: `{name, description, input_schema, ..}`.
    Anthropic,
    /// Gemini: one `functionDeclaration`.
    Gemini,
    /// Model Context Protocol `tools/list` entry: `{name, description, inputSchema}`.
    Mcp,
}

/// The fields every shape is built from.
pub(crate) struct Definition<'a> {
    pub(crate) name: &'a str,
    pub(crate) description: Option<&'a str>,
    pub(crate) parameters: &'a Value,
    pub(crate) strict: Option<bool>,
    pub(crate) input_examples: &'a [Value],
    pub(crate) cache_control: Option<&'a Value>,
}

/// Every provider shape of one tool.
#[derive(Debug)]
pub(crate) struct Shapes {
    openai: Value,
    flat: Value,
    anthropic: Value,
    gemini: Value,
    mcp: Value,
}

impl Shapes {
    pub(crate) fn new(def: &Definition<'_>) -> Self {
        Self {
            openai: openai::nested(def),
            flat: Value::Object(openai::flat(def)),
            anthropic: anthropic::tool(def),
            gemini: gemini::function_declaration(def),
            mcp: mcp::tool(def),
        }
    }

    pub(crate) fn get(&self, provider: Provider) -> &Value {
        match provider {
            Provider::OpenAi => &self.openai,
            Provider::FlatFunction => &self.flat,
            Provider::Anthropic => &self.anthropic,
            Provider::Gemini => &self.gemini,
            Provider::Mcp => &self.mcp,
        }
    }
}

/// Starts a shape: `name`, then `description` when set.
fn named(def: &Definition<'_>) -> Map<String, Value> {
    let mut map = Map::new();
    map.insert("name".into(), def.name.into());
    if let Some(description) = def.description {
        map.insert("description".into(), description.into());
    }
    map
}

/// Adds `strict` when it was set.
fn with_strict(map: &mut Map<String, Value>, def: &Definition<'_>) {
    if let Some(strict) = def.strict {
        map.insert("strict".into(), strict.into());
    }
}
