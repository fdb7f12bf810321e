//! 10,000 made-up tools for the search benches (`search` here, and the `bm25` crate's side
//! in `benches/peers`): `server__verb_noun_i`, a sentence of description and two described
//! parameters, built from word lists so that words repeat across tools the way published
//! servers' do.

use serde_json::{Value, json};
use toolwire::{Tool, ToolResult};

/// How many tools.
pub(crate) const TOOLS: usize = 10_000;

pub(crate) const SERVERS: [&str; 20] = [
    "github",
    "gitlab",
    "jira",
    "linear",
    "slack",
    "notion",
    "drive",
    "calendar",
    "gmail",
    "stripe",
    "postgres",
    "sentry",
    "figma",
    "asana",
    "hubspot",
    "zendesk",
    "aws",
    "docker",
    "kubernetes",
    "filesystem",
];
pub(crate) const VERBS: [&str; 25] = [
    "create", "list", "get", "update", "delete", "search", "archive", "move", "copy", "share",
    "send", "read", "write", "sync", "export", "import", "assign", "close", "open", "merge",
    "comment", "tag", "schedule", "cancel", "approve",
];
pub(crate) const NOUNS: [&str; 20] = [
    "issue",
    "file",
    "event",
    "message",
    "page",
    "task",
    "user",
    "invoice",
    "record",
    "project",
    "branch",
    "channel",
    "document",
    "meeting",
    "ticket",
    "image",
    "cluster",
    "container",
    "report",
    "label",
];

/// The tools, in order.
pub(crate) fn tools() -> Vec<Tool> {
    (0..TOOLS)
        .map(|i| {
            let (server, verb, noun) = (
                SERVERS[i % SERVERS.len()],
                VERBS[(i / SERVERS.len()) % VERBS.len()],
                NOUNS[(i / (SERVERS.len() * VERBS.len())) % NOUNS.len()],
            );
            let other = NOUNS[(i * 7 + 3) % NOUNS.len()];
            Tool::define(format!("{server}__{verb}_{noun}_{i}"))
                .description(format!(
                    "{verb} a {noun} in {server}; it links the {noun} to a {other} of the team"
                ))
                .parameters(json!({"type": "object", "properties": {
                    "id": {"type": "string", "description": format!("the {noun} to {verb}")},
                    "note": {"type": "string", "description": format!("text for the {other}")}
                }}))
                .execute_sync(|_, _| ToolResult::ok(Value::Null, ""))
                .build()
                .unwrap()
        })
        .collect()
}
