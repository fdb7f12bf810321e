//! What `toolwire check` says of the catalog: which tools are deferred, and what the tool
//! definitions sent on every model turn cost, with deferral and without.

use serde_json::Value;
use toolwire::{Provider, Registry};

/// How many deferred tools are named before the rest are counted.
const NAMED: usize = 30;

/// The catalog's lines for the model providers of `providers`, over `registry` as a run
/// would see it (no state).
pub(super) fn report(registry: &Registry, providers: &[Provider]) -> Vec<String> {
    let deferred: Vec<&str> = registry
        .tools()
        .iter()
        .map(toolwire::Tool::name)
        .filter(|name| registry.is_deferred(name))
        .collect();
    if deferred.is_empty() {
        let count = registry.len();
        return vec![format!(
            "catalog: all {count} tools are sent on every turn (none deferred: set \
             `defer_loading`, or reach `defer_threshold`, {} by default)",
            toolwire::registry::DEFAULT_DEFER_THRESHOLD
        )];
    }
    let mut named = deferred.iter().take(NAMED).copied().collect::<Vec<_>>().join(", ");
    if deferred.len() > NAMED {
        named.push_str(&format!(" and {} more", deferred.len() - NAMED));
    }
    let mut lines = vec![format!(
        "catalog: {} of {} tools are deferred, sent once a run's `{}` finds them: {named}",
        deferred.len(),
        registry.len(),
        toolwire_agent::SEARCH_TOOL
    )];
    let search = toolwire_agent::search_tool().ok();
    // `toolwire serve` lists every tool to an MCP client, deferred or not: only the model
    // providers, which `toolwire run` talks to, send the catalog.
    for provider in providers.iter().copied().filter(|provider| *provider != Provider::Mcp) {
        let mut sent = characters(registry.loaded_definitions(provider, &()));
        sent += search.as_ref().map_or(0, |tool| characters([tool.definition(provider)]));
        let all = characters(registry.definitions(provider, &()));
        lines.push(format!(
            "catalog: {provider}: the definitions sent on every turn are about {} tokens \
             ({sent} characters) with deferral, and would be about {} ({all} characters) \
             without; estimated at 4 characters a token, not counted with the model's tokenizer",
            tokens(sent),
            tokens(all),
        ));
    }
    lines
}

/// The characters of `definitions` as compact JSON, as a request carries them.
fn characters<'a>(definitions: impl IntoIterator<Item = &'a Value>) -> usize {
    definitions.into_iter().map(|definition| definition.to_string().chars().count()).sum()
}

/// The estimated tokens of `characters`, rounded up.
fn tokens(characters: usize) -> usize {
    characters.div_ceil(4)
}
