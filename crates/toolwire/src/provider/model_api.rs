//! [`ModelApi`]: a provider's conversation with a model, whichever the provider.

use std::fmt;

use serde_json::Value;

use super::Provider;
use super::catalog::{CatalogForm, CatalogTools};
use super::decode::TurnDecoder;
use super::decode_error::DecodeError;
use super::parse_error::ParseError;
use super::request::TurnRequest;
use super::turn::ModelTurn;
use super::wire::Model;
use crate::media::{Part, not_shown, stand_in_media};
use crate::record::{Receipt, ToolCall, ToolResult};

/// The wire format of one provider's conversation with a model: where a turn's request
/// goes and what it carries, how its reply or stream reads as a [`ModelTurn`], and the
/// messages that carry a turn and its results back. Get it from
/// [`Provider::model_api`]; an agent loop written against it runs with any provider.
///
/// It knows no transport: the caller sends the request (to [`endpoint`](Self::endpoint)
/// below a base URL, with [`headers`](Self::headers)) and hands back what arrives.
///
/// ```
/// # #[tokio::main(flavor = "current_thread")] async fn main() -> Result<(), Box<dyn std::error::Error>> {
/// use serde_json::json;
/// use toolwire::provider::{TurnRequest, repair};
/// use toolwire::{Provider, Registry, Tool, ToolResult};
///
/// let weather = Tool::define("get_weather")
///     .execute_sync(|args, _| ToolResult::ok(json!({"temp": 21}), format!("21 in {}", args["city"])))
///     .build()?;
/// let registry = Registry::builder().register(weather).seal()?;
///
/// let api = Provider::Anthropic.model_api().expect("Anthropic runs models");
/// let mut messages = vec![api.user_message("Weather in Oslo?")];
/// let tools: Vec<_> = registry.definitions(Provider::Anthropic, &()).into_iter().cloned().collect();
/// let body = api.body(&TurnRequest::new("claude-sonnet-4-5", &messages).with_tools(&tools));
/// assert_eq!(body["tools"][0]["name"], "get_weather");
///
/// // The reply, as the API would send it.
/// let reply = json!({"role": "assistant", "stop_reason": "tool_use", "content": [
///     {"type": "tool_use", "id": "toolu_1", "name": "get_weather", "input": {"city": "Oslo"}}]});
/// let turn = api.read_reply(&reply)?;
/// let receipts = repair(&turn.calls, registry.dispatch(turn.calls.clone()).await);
/// messages.extend(turn.assistant.iter().cloned());
/// messages.extend(api.render_results(&turn.assistant, &receipts));
/// assert_eq!(messages[2]["content"][0]["tool_use_id"], "toolu_1");
/// # Ok(()) }
/// ```
#[derive(Clone, Copy)]
pub struct ModelApi {
    provider: Provider,
    model: &'static dyn Model,
}

impl ModelApi {
    pub(super) fn new(provider: Provider, model: &'static dyn Model) -> Self {
        Self { provider, model }
    }

    /// The provider.
    pub fn provider(self) -> Provider {
        self.provider
    }

    /// The API's name in messages, such as `OpenAI Chat Completions`.
    pub fn title(self) -> &'static str {
        self.provider.title()
    }

    /// The base URL of the provider's own API, such as `https://api.anthropic.com/v1`.
    pub fn default_base_url(self) -> &'static str {
        self.model.default_base_url()
    }

    /// The environment variables the provider's API key is usually kept in, in the order to
    /// read them: `OPENAI_API_KEY`, `ANTHROPIC_API_KEY`, or `GEMINI_API_KEY` then
    /// `GOOGLE_API_KEY`.
    pub fn key_variables(self) -> &'static [&'static str] {
        self.model.key_variables()
    }

    /// The provider's `gen_ai.provider.name` in the OpenTelemetry GenAI semantic
    /// conventions: `openai`, `anthropic` or `gcp.gemini`.
    pub fn system_name(self) -> &'static str {
        self.model.system_name()
    }

    /// The path of a turn's request below the base URL, such as `/chat/completions`, or for
    /// Gemini `/models/{model}:streamGenerateContent?alt=sse` when `stream`.
    pub fn endpoint(self, model: &str, stream: bool) -> String {
        self.model.endpoint(model, stream)
    }

    /// The headers of a request: the key, as the provider takes it (a bearer token,
    /// `x-api-key` or `x-goog-api-key`), and the API version where the provider asks for one.
    /// Without a key, only the version.
    pub fn headers(self, key: Option<&str>) -> Vec<(&'static str, String)> {
        self.model.headers(key)
    }

    /// The request body of a turn.
    pub fn body(self, request: &TurnRequest<'_>) -> Value {
        self.model.body(request)
    }

    /// The user message that says `text`.
    pub fn user_message(self, text: &str) -> Value {
        self.model.user_message(text)
    }

    /// The calls of a whole reply, as the provider's module's `parse_calls` reads them.
    ///
    /// # Errors
    ///
    /// A [`ParseError`] when the reply is not of the provider's shape, or a call lacks what
    /// its result must echo.
    pub fn parse_calls(self, reply: &Value) -> Result<Vec<ToolCall>, ParseError> {
        self.model.parse_calls(reply)
    }

    /// A whole (unstreamed) reply as a turn.
    ///
    /// # Errors
    ///
    /// A [`Provider`](super::DecodeErrorKind::Provider) error for an error the provider
    /// sent, and an [`InvalidReply`](super::DecodeErrorKind::InvalidReply) error for a reply
    /// that is not of its shape.
    pub fn read_reply(self, reply: &Value) -> Result<ModelTurn, DecodeError> {
        self.model.read_reply(reply)
    }

    /// A decoder for a streamed reply.
    pub fn decoder(self) -> TurnDecoder {
        TurnDecoder::new(self.provider, self.model.decoder())
    }

    /// The assistant messages of a turn that said `text` and made `calls`: for a turn whose
    /// reply never arrived whole, so the calls that started still get their results and the
    /// conversation stays balanced. A call whose arguments could not be read goes back with
    /// `{}`.
    pub fn render_turn(self, text: &str, calls: &[ToolCall]) -> Vec<Value> {
        self.model.render_turn(text, calls)
    }

    /// Whether a tool result may carry `part` to this provider in its native form, or why
    /// not (audio to Anthropic, an image over a provider's size limit): the reason is what
    /// its stand-in says.
    ///
    /// ```
    /// use toolwire::Provider;
    /// use toolwire::media::Part;
    ///
    /// let api = Provider::Anthropic.model_api().unwrap();
    /// let audio = Part::audio("audio/wav", b"RIFF\0\0\0\0WAVE".to_vec());
    /// assert_eq!(api.admit(&audio).unwrap_err(), "Anthropic Messages takes no audio");
    /// ```
    ///
    /// # Errors
    ///
    /// The reason, in words, when the provider does not take it.
    pub fn admit(self, part: &Part) -> Result<(), String> {
        self.model.admit(part)
    }

    /// Puts a text stand-in in place of each of `result`'s parts this provider does not take
    /// (see [`admit`](Self::admit)), so that the result, as kept in a receipt and a history,
    /// says what the model was not shown; returns the stand-ins' texts.
    ///
    /// [`render_results`](Self::render_results) renders such a part the same way, so a
    /// result need not be fitted first; the agent loop fits every result it keeps.
    pub fn fit(self, result: &mut ToolResult) -> Vec<String> {
        stand_in_media(result, |part| self.model.admit(part).err().map(|why| not_shown(&why)))
    }

    /// Keeps the newest `keep` images of tool results in `messages` (a conversation in this
    /// provider's shape) and puts a short text in place of each older one, naming its MIME
    /// type and size: every turn sends the whole history again, and an old screenshot costs
    /// as much as a new one. Returns how many it replaced.
    ///
    /// ```
    /// use serde_json::json;
    /// use toolwire::media::Part;
    /// use toolwire::{CallId, Provider, Receipt, ToolResult};
    ///
    /// let api = Provider::Anthropic.model_api().unwrap();
    /// let shot = |id: &str| {
    ///     let png = b"\x89PNG\r\n\x1a\n".to_vec();
    ///     let result = ToolResult::from_parts(vec![Part::image("image/png", png)]);
    ///     Receipt::new("screenshot", Some(CallId::from(id)), result)
    /// };
    /// let mut history = vec![];
    /// history.extend(api.render_results(&[], &[shot("a")]));
    /// history.extend(api.render_results(&[], &[shot("b")]));
    /// assert_eq!(api.keep_newest_images(&mut history, 1), 1);
    /// assert_eq!(history[0]["content"][0]["content"][0]["type"], "text");
    /// assert_eq!(history[1]["content"][0]["content"][0]["type"], "image");
    /// ```
    pub fn keep_newest_images(self, messages: &mut [Value], keep: usize) -> usize {
        let mut seen = 0usize;
        let mut replaced = 0usize;
        let mut decide = || {
            seen += 1;
            let kept = seen <= keep;
            if !kept {
                replaced += 1;
            }
            kept
        };
        for message in messages.iter_mut().rev() {
            self.model.forget_images(message, &mut decide);
        }
        replaced
    }

    /// How this provider's requests carry a deferred catalog: a search function whose finds
    /// are appended, Anthropic's `tool_reference` blocks, or Responses' client-executed
    /// `tool_search`.
    pub fn catalog_form(self) -> CatalogForm {
        self.model.catalog_form()
    }

    /// The tools of one turn of a run whose registry defers tools, as this provider's
    /// [`catalog_form`](Self::catalog_form) lays them out: the loaded tools first, in order,
    /// then the search, then the deferred tools the form needs (the found ones appended, or
    /// every one marked `defer_loading`), so that the list only grows at its end.
    ///
    /// ```
    /// use serde_json::json;
    /// use toolwire::Provider;
    /// use toolwire::provider::{CatalogForm, CatalogTools};
    ///
    /// let api = Provider::Anthropic.model_api().unwrap();
    /// assert_eq!(api.catalog_form(), CatalogForm::References);
    /// let loaded = [json!({"name": "read_file", "input_schema": {"type": "object"}})];
    /// let search = json!({"name": "search_tools", "input_schema": {"type": "object"}});
    /// let deploy = json!({"name": "deploy", "input_schema": {"type": "object"}});
    /// let tools = api.catalog_tools(&CatalogTools {
    ///     loaded: &loaded, search: &search, deferred: &[&deploy], found: &[],
    /// });
    /// assert_eq!(tools[2]["name"], "deploy");
    /// assert_eq!(tools[2]["defer_loading"], true);
    /// ```
    pub fn catalog_tools(self, tools: &CatalogTools<'_>) -> Vec<Value> {
        self.model.catalog_tools(tools)
    }

    /// The messages that answer a turn's calls, one receipt per call in call order (see
    /// [`repair`](super::repair)); `assistant` is what the turn appended, which OpenAI
    /// Responses needs to answer a parallel-call wrapper as one output.
    pub fn render_results(self, assistant: &[Value], receipts: &[Receipt]) -> Vec<Value> {
        self.model.render_results(assistant, receipts)
    }
}

impl fmt::Debug for ModelApi {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("ModelApi").field("provider", &self.provider).finish()
    }
}

impl PartialEq for ModelApi {
    fn eq(&self, other: &Self) -> bool {
        self.provider == other.provider
    }
}

impl Eq for ModelApi {}
