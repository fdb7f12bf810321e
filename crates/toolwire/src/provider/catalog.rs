//! How each provider's requests carry a deferred catalog (see
//! [`Registry::is_deferred`](crate::Registry::is_deferred)): the tools a turn offers, and the
//! answer of a search in the provider's own form.

use serde_json::Value;

/// How a provider's requests carry the deferred tools and the searches that find them; from
/// [`ModelApi::catalog_form`](super::ModelApi::catalog_form). In every form the search
/// runs in toolwire, with [`Registry::answer_search`](crate::Registry::answer_search).
#[non_exhaustive]
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum CatalogForm {
    /// No native support (OpenAI Chat Completions, Gemini): the search is a function tool,
    /// and the tools each search finds are appended to the tools of the later turns.
    Appended,
    /// Anthropic Messages: every deferred tool is sent with `defer_loading: true`, which
    /// keeps it out of the model's context, and a search answers with `tool_reference`
    /// blocks, which the API expands into the tools' definitions.
    References,
    /// OpenAI Responses: the search is a client-executed `tool_search` tool, and its
    /// `tool_search_output` carries the found tools' definitions.
    ClientSearch,
}

/// The tools of one turn of a run whose registry defers tools, each in the provider's shape;
/// [`ModelApi::catalog_tools`](super::ModelApi::catalog_tools) lays them out.
#[derive(Debug, Clone, Copy)]
pub struct CatalogTools<'a> {
    /// The tools loaded always, in registration order.
    pub loaded: &'a [Value],
    /// The search tool's definition ([`search_tool`](crate::registry::search_tool)).
    pub search: &'a Value,
    /// Every deferred tool, in registration order.
    pub deferred: &'a [&'a Value],
    /// The deferred tools the run's searches found, in the order found.
    pub found: &'a [&'a Value],
}

/// [`CatalogForm::Appended`]'s tools: the loaded ones, the search, then the found ones. The
/// list only grows at its end, so a prompt cache of the earlier turns stays good.
pub(super) fn appended(tools: &CatalogTools<'_>) -> Vec<Value> {
    after_search(tools, tools.found.iter().map(|&tool| tool.clone()))
}

/// The loaded tools, the search, then `rest`: the layout every form shares.
pub(super) fn after_search(
    tools: &CatalogTools<'_>,
    rest: impl ExactSizeIterator<Item = Value>,
) -> Vec<Value> {
    let mut out = Vec::with_capacity(tools.loaded.len() + 1 + rest.len());
    out.extend(tools.loaded.iter().cloned());
    out.push(tools.search.clone());
    out.extend(rest);
    out
}

/// Whether `receipt` answers a search with found tools, as
/// [`Registry::answer_search`](crate::Registry::answer_search) makes one: the tool is the
/// search, and its result succeeded with a `found` list of names; those names, in order.
pub(in crate::provider) fn found_names(receipt: &crate::Receipt) -> Option<Vec<&str>> {
    if &*receipt.tool != crate::registry::SEARCH_TOOL || !receipt.result.is_success() {
        return None;
    }
    let found = receipt.result.json().get("found")?.as_array()?;
    found.iter().map(Value::as_str).collect()
}
