//! What each provider's folder implements: the contract between [`Provider`](super::Provider)
//! and the folder that owns one wire format.
//!
//! Every provider describes tools ([`Wire`]); the ones a model is reached by also speak a
//! conversation ([`Model`]): the request, the reply, the stream, the turns and the results.

use serde_json::Value;

use super::catalog::{CatalogForm, CatalogTools};
use super::decode::Decode;
use super::decode_error::DecodeError;
use super::parse_error::ParseError;
use super::request::TurnRequest;
use super::shapes::Definition;
use super::turn::ModelTurn;
use crate::dialect::Dialect;
use crate::media::Part;
use crate::record::{Receipt, ToolCall};

/// One provider's wire format, as far as tools are described in it.
pub(crate) trait Wire: Sync {
    /// The name configuration files, run states and the command line spell it by.
    fn name(&self) -> &'static str;

    /// Other names it is read by, in lower case.
    fn aliases(&self) -> &'static [&'static str] {
        &[]
    }

    /// How messages name it: `invalid {label} response`.
    fn label(&self) -> &'static str;

    /// Its full name, such as `Anthropic Messages`.
    fn title(&self) -> &'static str;

    /// The dialect a tool's parameters are compiled to in its shape.
    fn dialect(&self, strict: bool) -> Dialect;

    /// A tool's definition in its shape.
    fn describe(&self, def: &Definition<'_>) -> Value;

    /// The conversation with a model, for a provider a model is reached by.
    fn model(&self) -> Option<&'static dyn Model> {
        None
    }
}

/// One provider's conversation with a model: the HTTP request, the reply whole or streamed,
/// and the messages that carry a turn and its results.
pub(crate) trait Model: Sync {
    /// The base URL of the provider's own API.
    fn default_base_url(&self) -> &'static str;

    /// The environment variables its API key is read from, in order.
    fn key_variables(&self) -> &'static [&'static str];

    /// Its `gen_ai.provider.name` in the OpenTelemetry GenAI conventions.
    fn system_name(&self) -> &'static str;

    /// The path of a turn's request below the base URL.
    fn endpoint(&self, model: &str, stream: bool) -> String;

    /// The headers that authenticate with `key` and name the API version.
    fn headers(&self, key: Option<&str>) -> Vec<(&'static str, String)>;

    /// The request body of a turn.
    fn body(&self, request: &TurnRequest<'_>) -> Value;

    /// The calls of a whole reply.
    fn parse_calls(&self, reply: &Value) -> Result<Vec<ToolCall>, ParseError>;

    /// The user message that says `text`.
    fn user_message(&self, text: &str) -> Value;

    /// The assistant messages of a turn that said `text` and made `calls`.
    fn render_turn(&self, text: &str, calls: &[ToolCall]) -> Vec<Value>;

    /// The messages that answer a turn's calls; `assistant` is what the turn appended.
    fn render_results(&self, assistant: &[Value], receipts: &[Receipt]) -> Vec<Value>;

    /// Whether a tool result may carry `part` in its native form, or why not: the reason
    /// becomes the part's stand-in.
    fn admit(&self, part: &Part) -> Result<(), String>;

    /// Puts a text in place of each image of tool results in `message` (one message of the
    /// history), newest first, that `keep` does not keep.
    fn forget_images(&self, message: &mut Value, keep: &mut dyn FnMut() -> bool);

    /// A whole (unstreamed) reply as a turn.
    fn read_reply(&self, reply: &Value) -> Result<ModelTurn, DecodeError>;

    /// A decoder for a streamed reply.
    fn decoder(&self) -> Box<dyn Decode>;

    /// How requests carry a deferred catalog.
    fn catalog_form(&self) -> CatalogForm {
        CatalogForm::Appended
    }

    /// The tools of a turn of a run whose registry defers tools.
    fn catalog_tools(&self, tools: &CatalogTools<'_>) -> Vec<Value> {
        super::catalog::appended(tools)
    }
}
