//! The tool a model searches the deferred catalog with, [`SEARCH_TOOL`], and its answers.
//!
//! Its calls are not run by the registry: a host that offers it (the agent loop, `toolwire
//! serve`) answers them with [`Registry::answer_search`], which every provider's renderer
//! reads in its own form (see [`CatalogForm`]).

use serde_json::{Value, json};

use super::Registry;
use crate::error::DefineError;
use crate::provider::{CatalogForm, Provider};
use crate::record::{FailureKind, ToolResult};
use crate::tool::Tool;

/// The name of the tool search, as a model calls it. A registry that defers tools may not
/// have a tool of its own by this name.
pub const SEARCH_TOOL: &str = "search_tools";

/// How many tools a search returns unless the model asks for another number.
const DEFAULT_LIMIT: usize = 5;
/// The most tools one search returns.
const MAX_LIMIT: usize = 20;
/// The most characters of a found tool's description the search's result repeats.
const DESCRIPTION_CHARS: usize = 300;

/// The tool search as a tool, for its definition in each provider's shape (as
/// [`Tool::definition`] gives it): what a host offers a model beside the loaded tools when
/// the registry defers some. Its calls are answered by [`Registry::answer_search`]; the
/// tool's own handler only fails, so it is not to be registered.
///
/// ```
/// use toolwire::Provider;
/// use toolwire::registry::{SEARCH_TOOL, search_tool};
///
/// let tool = search_tool()?;
/// assert_eq!(tool.definition(Provider::Anthropic)["name"], SEARCH_TOOL);
/// # Ok::<(), toolwire::DefineError>(())
/// ```
///
/// # Errors
///
/// None in practice, since the definition is fixed: a [`DefineError`] if toolwire ever
/// rejected it.
pub fn search_tool() -> Result<Tool, DefineError> {
    Tool::define(SEARCH_TOOL)
        .description(
            "Search the tools that are not loaded yet, by what they do. Returns the best \
             matches; each can be called from the next turn on. Call this when no loaded \
             tool fits the task; a tool that no search has found cannot be called.",
        )
        .parameters(json!({
            "type": "object",
            "properties": {
                "query": {
                    "type": "string",
                    "description": "Words for what the tool should do, such as \"create a github issue\"",
                },
                "limit": {
                    "type": "integer",
                    "description": "How many tools to return, 1 to 20; 5 when left out",
                },
            },
            "required": ["query"],
        }))
        .execute_sync(|_, _| ToolResult::failure("the tool search is answered by its host"))
        .build()
}

/// What a search call found: its result, for the model, and the tools' names, best first.
#[derive(Debug, Clone)]
pub struct SearchAnswer {
    /// The result: on success, its JSON is `{"tools": [{"name", "description"}, ..], "found":
    /// [names]}`, and for [`CatalogForm::ClientSearch`] also `"definitions"`, the found tools
    /// in the provider's shape. A provider's renderer answers a search in its own form (such
    /// as Anthropic's `tool_reference` blocks) only for a result of this shape.
    pub result: ToolResult,
    /// The names of the tools found, best first; empty when the call failed.
    pub found: Vec<String>,
}

impl Registry {
    /// Answers a call of [`SEARCH_TOOL`] with `arguments` (`{"query": "...", "limit": n}`)
    /// from a model of `provider`: the deferred tools that best match the query (see
    /// [`search_deferred`](Self::search_deferred)), at most `limit` (5 unless given; a larger
    /// number than 20 is read as 20). Arguments that are not of that shape fail as
    /// [`InvalidInput`](FailureKind::InvalidInput), saying what is wrong.
    ///
    /// ```
    /// use serde_json::{Value, json};
    /// use toolwire::{Provider, Registry, Tool, ToolResult};
    ///
    /// let tool = |name: &str, description: &str| {
    ///     Tool::define(name).description(description)
    ///         .execute_sync(|_, _| ToolResult::ok(Value::Null, "")).build()
    /// };
    /// let registry = Registry::builder()
    ///     .register(tool("create_issue", "Open an issue in a repository")?)
    ///     .register(tool("send_mail", "Send an email")?)
    ///     .defer_threshold(Some(1))
    ///     .seal()?;
    /// let answer = registry.answer_search(&json!({"query": "open an issue"}), Provider::OpenAi);
    /// assert_eq!(answer.found, ["create_issue"]);
    /// let bad = registry.answer_search(&json!({"query": 7}), Provider::OpenAi);
    /// assert!(bad.result.text().unwrap().contains("`query` must be a string"));
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn answer_search(&self, arguments: &Value, provider: Provider) -> SearchAnswer {
        self.answer_search_where(arguments, provider, |_| true)
    }

    /// [`answer_search`](Self::answer_search) over the deferred tools `keep` accepts, such as
    /// those active for the caller's state: the others are neither ranked nor named.
    pub fn answer_search_where(
        &self,
        arguments: &Value,
        provider: Provider,
        keep: impl Fn(&Tool) -> bool,
    ) -> SearchAnswer {
        let failed = |text: String| SearchAnswer {
            result: ToolResult::failed(FailureKind::InvalidInput, format!("{SEARCH_TOOL}: {text}")),
            found: Vec::new(),
        };
        let query = match arguments.get("query") {
            Some(Value::String(query)) if !query.trim().is_empty() => query,
            Some(Value::String(_)) => {
                return failed("`query` is empty; say what the tool should do".into());
            }
            Some(other) => return failed(format!("`query` must be a string, not {other}")),
            None => return failed("`query` is missing; say what the tool should do".into()),
        };
        let limit = match arguments.get("limit") {
            None | Some(Value::Null) => DEFAULT_LIMIT,
            Some(value) => match value.as_u64() {
                Some(limit) if limit >= 1 => {
                    usize::try_from(limit).unwrap_or(MAX_LIMIT).min(MAX_LIMIT)
                }
                _ => {
                    return failed(format!(
                        "`limit` must be a whole number from 1 to {MAX_LIMIT}, not {value}"
                    ));
                }
            },
        };
        let hits = self.search_deferred_where(query, limit, keep);
        if hits.is_empty() {
            let text = format!("No tool matches {query:?}. Try other words, or fewer.");
            return SearchAnswer {
                result: ToolResult::ok(json!({"tools": []}), text),
                found: Vec::new(),
            };
        }
        let mut listed = Vec::with_capacity(hits.len());
        let mut found = Vec::with_capacity(hits.len());
        let mut text = format!("Found {} tools; call them from your next turn:", hits.len());
        for hit in &hits {
            let name = hit.tool.name();
            let description: String = hit
                .tool
                .description()
                .unwrap_or_default()
                .chars()
                .take(DESCRIPTION_CHARS)
                .collect();
            text.push_str(&format!("\n- {name}: {description}"));
            listed.push(json!({"name": name, "description": description}));
            found.push(name.to_owned());
        }
        let mut json = json!({"tools": listed, "found": found});
        if provider.model_api().is_some_and(|api| api.catalog_form() == CatalogForm::ClientSearch) {
            let definitions = hits.iter().map(|hit| hit.tool.definition(provider).clone());
            json["definitions"] = Value::Array(definitions.collect());
        }
        SearchAnswer { result: ToolResult::ok(json, text), found }
    }
}
