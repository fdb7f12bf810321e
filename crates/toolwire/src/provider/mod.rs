//! The providers' wire formats: tool definitions out, the calls a model makes in, the
//! results of those calls back out, and the whole conversation with a model between them.
//!
//! Each provider owns its wire format in one module (`openai`, `responses`, `anthropic`,
//! `gemini`, and the description-only `mcp` and flat function): its tool shape, its request,
//! its reply whole and streamed, its turns and its results. [`Provider`] picks one; the one
//! `match` over providers is in this file.
//!
//! A tool's definition shapes are computed on first use, once each; read them with
//! [`Tool::definition`](crate::Tool::definition). For a provider a model is reached by,
//! [`Provider::model_api`] gives its conversation as a [`ModelApi`]: the request body, a whole
//! reply or a stream (through a [`TurnDecoder`]) read as one [`ModelTurn`], and the messages
//! that carry a turn and its results back, the same calls for every provider. Each
//! provider's module also has the pieces by name: it parses a model's reply into
//! [`ToolCall`](crate::ToolCall)s for [`Registry::dispatch`](crate::Registry::dispatch), and
//! renders the receipts back into the messages that provider expects:
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
mod catalog;
mod decode;
mod decode_error;
mod events;
pub mod gemini;
mod identity;
mod mcp;
mod model_api;
pub mod names;
pub mod openai;
mod parse;
mod parse_error;
mod render;
mod repair;
mod request;
pub mod responses;
mod shapes;
mod stream;
mod turn;
mod wire;

pub use catalog::{CatalogForm, CatalogTools};
pub use decode::TurnDecoder;
pub use decode_error::{DecodeError, DecodeErrorKind};
pub use identity::UnknownProvider;
pub use model_api::ModelApi;
pub use parse_error::{ParseError, ParseErrorKind};
pub use repair::{MISSING_RESULT, repair};
pub use request::TurnRequest;
pub use turn::{Finish, ModelTurn, Usage};

pub(crate) use shapes::{Extras, Shapes, Source};

use wire::Wire;

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

impl Provider {
    /// Every provider, in declaration order.
    pub const ALL: [Provider; 6] = [
        Provider::OpenAi,
        Provider::FlatFunction,
        Provider::Responses,
        Provider::Anthropic,
        Provider::Gemini,
        Provider::Mcp,
    ];

    /// Everything this provider's folder knows of its wire format: the one place a provider
    /// is picked. A new provider adds its variant above, to [`ALL`](Provider::ALL), and its
    /// arm here.
    fn wire(self) -> &'static dyn Wire {
        match self {
            Provider::OpenAi => &openai::Format,
            Provider::FlatFunction => &openai::FlatFormat,
            Provider::Responses => &responses::Format,
            Provider::Anthropic => &anthropic::Format,
            Provider::Gemini => &gemini::Format,
            Provider::Mcp => &mcp::Format,
        }
    }

    /// The place of this provider in [`Provider::ALL`].
    pub(crate) fn position(self) -> usize {
        self as usize
    }
}

#[cfg(test)]
mod tests {
    use super::Provider;

    #[test]
    fn a_providers_position_is_its_place_in_all() {
        for (place, provider) in Provider::ALL.into_iter().enumerate() {
            assert_eq!(provider.position(), place, "{provider}");
        }
    }
}
