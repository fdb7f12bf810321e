//! The providers' wire formats: tool definitions out, the calls a model makes in, and the
//! results of those calls back out.
//!
//! A tool's definition shapes are computed on first use, once each; read them with
//! [`Tool::definition`](crate::Tool::definition). Each provider module parses a model's reply
//! into [`ToolCall`](crate::ToolCall)s for [`Registry::dispatch`](crate::Registry::dispatch),
//! and renders the receipts back into the messages that provider expects:
//!
//! ```
//! # #[tokio::main(flavor = "current_thread")] async fn main() -> Result<(), Box<dyn std::error::Error>> {
//! use serde_json::json;
//! use toolwire::provider::{anthropic, repair};
//! use toolwire::{Registry, Tool, ToolResult};
//!
//! let weather = Tool::define("get_weather")
//!     .execute_sync(|args, _| ToolResult::ok(json!({"temp": 21}), format!("21 in {}", args["city"])))
//!     .build()?;
//! let registry = Registry::builder().register(weather).seal()?;
//!
//! let reply = json!({"role": "assistant", "content": [
//!     {"type": "text", "text": "Let me check."},
//!     {"type": "tool_use", "id": "toolu_1", "name": "get_weather", "input": {"city": "Oslo"}}
//! ]});
//! let calls = anthropic::parse_calls(&reply)?;
//! let receipts = repair(&calls, registry.dispatch(calls.clone()).await);
//! let answer = anthropic::render_results(&receipts);
//! assert_eq!(answer["content"][0]["tool_use_id"], "toolu_1");
//! assert_eq!(answer["content"][0]["is_error"], false);
//! # Ok(()) }
//! ```

pub mod anthropic;
mod anthropic_stream;
pub mod gemini;
mod gemini_path;
mod gemini_stream;
mod identity;
mod mcp;
pub mod names;
pub mod openai;
mod openai_stream;
mod parallel;
mod parse;
mod parse_error;
mod render;
mod repair;
pub mod responses;
mod responses_stream;
mod stream;
mod turns;

pub use identity::UnknownProvider;
pub use parse_error::{ParseError, ParseErrorKind};
pub use repair::{MISSING_RESULT, repair};

use std::sync::OnceLock;

use serde_json::{Map, Value};

use crate::dialect::{Dialect, Dialects};

/// A wire format a tool can be described in.
#[non_exhaustive]
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Provider {
    /// OpenAI Chat Completions: `{"type": "function", "function": {..}}`.
    OpenAi,
    /// The flat function shape `{name, description, parameters, strict?}`, as in OpenAI's
    /// legacy `functions`.
    FlatFunction,
    /// OpenAI Responses: the flat function with `"type": "function"`.
    Responses,
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
    /// The parameters as OpenAI's shapes carry them: strict-compiled for strict tools.
    pub(crate) openai_parameters: &'a Value,
    /// The parameters as Anthropic's shape carries them: strict-compiled for strict tools.
    pub(crate) anthropic_parameters: &'a Value,
    pub(crate) strict: Option<bool>,
    pub(crate) input_examples: &'a [Value],
    pub(crate) cache_control: Option<&'a Value>,
    pub(crate) output_schema: Option<&'a Value>,
    pub(crate) annotations: &'a crate::tool::Annotations,
}

/// What a tool's shapes are built from besides its name, description and parameters.
#[derive(Debug, Default)]
pub(crate) struct Extras {
    pub(crate) strict: Option<bool>,
    pub(crate) input_examples: Vec<Value>,
    pub(crate) cache_control: Option<Value>,
    pub(crate) output_schema: Option<Value>,
    pub(crate) annotations: crate::tool::Annotations,
}

/// The parts of a tool its shapes describe, lent when a shape is first built.
pub(crate) struct Source<'a> {
    pub(crate) name: &'a str,
    pub(crate) description: Option<&'a str>,
    pub(crate) parameters: &'a Value,
    pub(crate) dialects: &'a Dialects,
}

/// Every provider shape of one tool, each built on first use and kept: a shape never asked
/// for costs nothing.
#[derive(Debug, Default)]
pub(crate) struct Shapes {
    extras: Extras,
    openai: OnceLock<Value>,
    flat: OnceLock<Value>,
    responses: OnceLock<Value>,
    anthropic: OnceLock<Value>,
    gemini: OnceLock<Value>,
    mcp: OnceLock<Value>,
}

impl Shapes {
    /// Keeps `extras`, building no shape yet.
    pub(crate) fn new(extras: Extras) -> Self {
        Self { extras, ..Self::default() }
    }

    /// The tool's annotations.
    pub(crate) fn annotations(&self) -> &crate::tool::Annotations {
        &self.extras.annotations
    }

    /// The shape for `provider`, built now from `source` if it is the first time.
    pub(crate) fn get(&self, provider: Provider, source: &Source<'_>) -> &Value {
        let cell = match provider {
            Provider::OpenAi => &self.openai,
            Provider::FlatFunction => &self.flat,
            Provider::Responses => &self.responses,
            Provider::Anthropic => &self.anthropic,
            Provider::Gemini => &self.gemini,
            Provider::Mcp => &self.mcp,
        };
        cell.get_or_init(|| build(provider, &self.definition(source)))
    }

    /// The fields a shape is built from; a strict tool's OpenAI and Anthropic shapes carry
    /// its parameters compiled for their strict modes.
    fn definition<'a>(&'a self, source: &Source<'a>) -> Definition<'a> {
        let strict = self.extras.strict == Some(true);
        let schema_for = |dialect| {
            if !strict {
                return source.parameters;
            }
            // Built strict tools compiled for both dialects; the fallback is never taken.
            source.dialects.get(dialect).map_or(source.parameters, |compiled| &compiled.schema)
        };
        Definition {
            name: source.name,
            description: source.description,
            parameters: source.parameters,
            openai_parameters: schema_for(Dialect::OpenAiStrict),
            anthropic_parameters: schema_for(Dialect::AnthropicStrict),
            strict: self.extras.strict,
            input_examples: &self.extras.input_examples,
            cache_control: self.extras.cache_control.as_ref(),
            output_schema: self.extras.output_schema.as_ref(),
            annotations: &self.extras.annotations,
        }
    }
}

/// Builds `provider`'s shape from `def`.
fn build(provider: Provider, def: &Definition<'_>) -> Value {
    match provider {
        Provider::OpenAi => openai::nested(def),
        Provider::FlatFunction => Value::Object(openai::flat(def)),
        Provider::Responses => responses_tool(def),
        Provider::Anthropic => anthropic::tool(def),
        Provider::Gemini => gemini::function_declaration(def),
        Provider::Mcp => mcp::tool(def),
    }
}

/// `{"type": "function", "name", "description"?, "parameters", "strict"}`. The Responses API
/// treats a missing `strict` as `true`, so a tool that did not ask for strict mode says
/// `false`: otherwise the model could be made to send `null` for optional properties.
fn responses_tool(def: &Definition<'_>) -> Value {
    let mut map = openai::flat(def);
    map.insert("type".into(), "function".into());
    map.entry("strict").or_insert(Value::Bool(false));
    Value::Object(map)
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
