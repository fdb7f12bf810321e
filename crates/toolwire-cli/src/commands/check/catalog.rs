//! What `toolwire check` says of the catalog: which tools are deferred, and what the tool
//! definitions sent on every model turn cost, with deferral and without.

use serde_json::Value;
use toolwire::{Provider, Registry};

/// How many deferred tools are named before the rest are counted.
const NAMED: usize = 30;

/// The catalog's lines for `providers`, over `registry` as a run would see it (no state).
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
    for provider in providers.iter().copied() {
        let mut sent = characters(registry.loaded_definitions(provider, &()));
        sent += search.as_ref().map_or(0, |tool| characters([tool.definition(provider)]));
        let all = characters(registry.definitions(provider, &()));
        // `toolwire serve` lists the catalog to an MCP client in a session (2025-11-25), and
        // every tool to a 2026-07-28 client.
        let what = match provider {
            Provider::Mcp => "the tools listed to an MCP client in a session (2025-11-25) are",
            Provider::Anthropic => {
                "the definitions in the model's context on every turn (every deferred one is \
                 still sent, marked `defer_loading`) are"
            }
            _ => "the definitions in the model's context on every turn are",
        };
        lines.push(format!(
            "catalog: {provider}: {what} about {} tokens ({sent} characters) with deferral, and \
             would be about {} ({all} characters) without; estimated at 4 characters a token, \
             not counted with the model's tokenizer",
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
