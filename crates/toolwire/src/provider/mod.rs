//! The providers' wire formats: tool definitions out, the calls a model makes in, and the
//! results of those calls back out.
//!
//! A tool's definition shapes are computed once, when it is built; read them with
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

pub use parse_error::{ParseError, ParseErrorKind};
pub use repair::{MISSING_RESULT, repair};

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
    /// The parameters as OpenAI's shapes carry them: strict-compiled for strict tools.
    pub(crate) openai_parameters: &'a Value,
    /// The parameters as Anthropic's shape carries them: strict-compiled for strict tools.
    pub(crate) anthropic_parameters: &'a Value,
    pub(crate) strict: Option<bool>,
    pub(crate) input_examples: &'a [Value],
    pub(crate) cache_control: Option<&'a Value>,
    pub(crate) output_schema: Option<&'a Value>,
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
