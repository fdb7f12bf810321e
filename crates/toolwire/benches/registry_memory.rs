//! The memory of a registry of 1,000 tools shaped like real ones, and what describing them
//! costs: built and sealed, then every tool's OpenAI shape, then every shape and every
//! dialect.
//!
//! Run with `cargo bench -p toolwire --bench registry_memory`. It reads the resident set and
//! its peak (`VmRSS`, `VmHWM`) from Linux's `/proc/self/status`. The tools come from twelve
//! templates modelled on tools that MCP servers and agent frameworks publish (issue trackers,
//! files, search, SQL, calendars, mail, chat, HTTP, code runners, maps, payments, tickets),
//! each with nested objects, enums, arrays, formats and descriptions; every one of the 1,000
//! tools is its own copy with its own name and descriptions, so nothing is shared by accident.

// A benchmark that cannot set up stops: it may unwrap, expect and panic.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use serde_json::{Value, json};
use toolwire::dialect::Dialect;
use toolwire::{Provider, Registry, Tool, ToolResult};

const TOOLS: usize = 1_000;

fn main() {
    let _ = std::fs::write("/proc/self/clear_refs", "5");
    let start = read_kib("VmRSS:").unwrap_or(0);
    let tools: Vec<Tool> = (0..TOOLS).map(tool).collect();
    let registry = Registry::builder().register_all(tools).seal().expect("unique names");
    report("built and sealed", start);
    let openai: usize =
        registry.definitions(Provider::OpenAi, &()).iter().map(|v| v.to_string().len()).sum();
    report(&format!("+ every OpenAI shape ({} KiB as JSON)", openai / 1024), start);
    for provider in [
        Provider::FlatFunction,
        Provider::Responses,
        Provider::Anthropic,
        Provider::Gemini,
        Provider::Mcp,
    ] {
        let _ = registry.definitions(provider, &());
    }
    for tool in registry.tools() {
        for dialect in [
            Dialect::OpenAiStrict,
            Dialect::Anthropic,
            Dialect::AnthropicStrict,
            Dialect::Gemini,
            Dialect::Mcp,
        ] {
            let _ = tool.compiled(dialect);
        }
    }
    report("+ every shape and every dialect", start);
}

fn report(step: &str, start: u64) {
    let (rss, peak) = (read_kib("VmRSS:").unwrap_or(0), read_kib("VmHWM:").unwrap_or(0));
    println!(
        "{step}: resident {:.1} MiB, peak {:.1} MiB (above the start)",
        rss.saturating_sub(start) as f64 / 1024.0,
        peak.saturating_sub(start) as f64 / 1024.0
    );
}

fn read_kib(field: &str) -> Option<u64> {
    let status = std::fs::read_to_string("/proc/self/status").ok()?;
    let line = status.lines().find(|l| l.starts_with(field))?;
    line.split_whitespace().nth(1)?.parse().ok()
}

/// Tool `i`: template `i % 12`, renamed and redescribed.
fn tool(i: usize) -> Tool {
    let (name, description, parameters) = template(i % 12);
    let parameters = redescribe(parameters, i);
    Tool::define(format!("{name}_{i}"))
        .description(format!("{description} (variant {i})"))
        .parameters(parameters)
        .execute_sync(|args, _| ToolResult::ok(args, "ok"))
        .build()
        .expect("a valid tool")
}

/// Appends the variant to every description, so no two tools share a string.
fn redescribe(mut schema: Value, i: usize) -> Value {
    if let Some(map) = schema.as_object_mut() {
        for (key, value) in map.iter_mut() {
            if key == "description" {
                if let Some(text) = value.as_str() {
                    *value = Value::String(format!("{text} [{i}]"));
                }
            } else {
                *value = redescribe(value.take(), i);
            }
        }
    } else if let Some(items) = schema.as_array_mut() {
        for item in items.iter_mut() {
            *item = redescribe(item.take(), i);
        }
    }
    schema
}

fn string(description: &str) -> Value {
    json!({"type": "string", "description": description})
}

fn template(which: usize) -> (&'static str, &'static str, Value) {
    match which {
        0 => (
            "create_issue",
            "Create an issue in a repository",
            json!({
                "type": "object",
                "properties": {
                    "owner": string("The account that owns the repository"),
                    "repo": string("The repository's name"),
                    "title": string("A short summary of the issue"),
                    "body": string("The issue's description, in Markdown"),
                    "labels": {"type": "array", "items": {"type": "string"}, "description": "Labels to add"},
                    "assignees": {"type": "array", "items": {"type": "string"}, "maxItems": 10},
                    "milestone": {"type": "integer", "minimum": 1, "description": "The milestone's number"},
                    "priority": {"type": "string", "enum": ["low", "medium", "high", "urgent"]}
                },
                "required": ["owner", "repo", "title"]
            }),
        ),
        1 => (
            "read_file",
            "Read a file from the workspace",
            json!({
                "type": "object",
                "properties": {
                    "path": string("The file's path, relative to the workspace root"),
                    "offset": {"type": "integer", "minimum": 0, "description": "The first line to read"},
                    "limit": {"type": "integer", "minimum": 1, "maximum": 2000},
                    "encoding": {"type": "string", "enum": ["utf-8", "latin-1", "base64"], "default": "utf-8"}
                },
                "required": ["path"],
                "additionalProperties": false
            }),
        ),
        2 => (
            "web_search",
            "Search the web",
            json!({
                "type": "object",
                "properties": {
                    "query": {"type": "string", "minLength": 1, "maxLength": 400, "description": "What to search for"},
                    "count": {"type": "integer", "minimum": 1, "maximum": 20, "default": 5},
                    "freshness": {"type": "string", "enum": ["day", "week", "month", "year"]},
                    "site": string("Limit the results to this domain"),
                    "safe_search": {"type": "boolean", "default": true}
                },
                "required": ["query"]
            }),
        ),
        3 => (
            "run_query",
            "Run a read-only SQL query",
            json!({
                "type": "object",
                "properties": {
                    "sql": string("The SELECT statement"),
                    "params": {"type": "array", "items": {"anyOf": [{"type": "string"}, {"type": "number"}, {"type": "boolean"}, {"type": "null"}]}},
                    "database": {"type": "string", "enum": ["primary", "replica", "analytics"]},
                    "timeout_ms": {"type": "integer", "minimum": 100, "maximum": 60000}
                },
                "required": ["sql"]
            }),
        ),
        4 => (
            "create_event",
            "Create a calendar event",
            json!({
                "type": "object",
                "properties": {
                    "summary": string("The event's title"),
                    "start": {"type": "string", "format": "date-time", "description": "When it starts"},
                    "end": {"type": "string", "format": "date-time", "description": "When it ends"},
                    "attendees": {"type": "array", "items": {"type": "object", "properties": {
                        "email": {"type": "string", "format": "email"},
                        "optional": {"type": "boolean"}
                    }, "required": ["email"]}},
                    "location": string("Where it takes place"),
                    "reminders": {"type": "array", "items": {"type": "integer", "minimum": 0}, "maxItems": 5},
                    "visibility": {"type": "string", "enum": ["default", "public", "private"]}
                },
                "required": ["summary", "start", "end"]
            }),
        ),
        5 => (
            "send_email",
            "Send an email",
            json!({
                "type": "object",
                "properties": {
                    "to": {"type": "array", "items": {"type": "string", "format": "email"}, "minItems": 1},
                    "cc": {"type": "array", "items": {"type": "string", "format": "email"}},
                    "subject": string("The subject line"),
                    "body": string("The message, in plain text"),
                    "attachments": {"type": "array", "items": {"type": "object", "properties": {
                        "name": {"type": "string"}, "content_base64": {"type": "string"}, "mime_type": {"type": "string"}
                    }, "required": ["name", "content_base64"]}}
                },
                "required": ["to", "subject", "body"]
            }),
        ),
        6 => (
            "post_message",
            "Post a message to a chat channel",
            json!({
                "type": "object",
                "properties": {
                    "channel": string("The channel's id or name"),
                    "text": string("The message"),
                    "thread_ts": string("Reply in this thread"),
                    "blocks": {"type": "array", "items": {"type": "object"}, "description": "Rich layout blocks"},
                    "unfurl_links": {"type": "boolean"}
                },
                "required": ["channel", "text"]
            }),
        ),
        7 => (
            "http_request",
            "Make an HTTP request",
            json!({
                "type": "object",
                "properties": {
                    "method": {"type": "string", "enum": ["GET", "POST", "PUT", "PATCH", "DELETE", "HEAD"]},
                    "url": {"type": "string", "format": "uri"},
                    "headers": {"type": "object", "additionalProperties": {"type": "string"}},
                    "body": string("The request body"),
                    "timeout_s": {"type": "number", "exclusiveMinimum": 0, "maximum": 120}
                },
                "required": ["method", "url"]
            }),
        ),
        8 => (
            "run_code",
            "Run a snippet of code in a sandbox",
            json!({
                "type": "object",
                "properties": {
                    "language": {"type": "string", "enum": ["python", "javascript", "bash", "ruby", "go"]},
                    "code": string("The program"),
                    "stdin": string("Standard input"),
                    "files": {"type": "object", "additionalProperties": {"type": "string"}},
                    "limits": {"type": "object", "properties": {
                        "cpu_seconds": {"type": "number", "minimum": 0.1, "maximum": 60},
                        "memory_mb": {"type": "integer", "minimum": 16, "maximum": 4096}
                    }}
                },
                "required": ["language", "code"]
            }),
        ),
        9 => (
            "find_places",
            "Find places near a location",
            json!({
                "type": "object",
                "properties": {
                    "query": string("What kind of place"),
                    "location": {"type": "object", "properties": {
                        "lat": {"type": "number", "minimum": -90, "maximum": 90},
                        "lng": {"type": "number", "minimum": -180, "maximum": 180}
                    }, "required": ["lat", "lng"]},
                    "radius_m": {"type": "integer", "minimum": 1, "maximum": 50000},
                    "open_now": {"type": "boolean"},
                    "price_levels": {"type": "array", "items": {"type": "integer", "minimum": 0, "maximum": 4}}
                },
                "required": ["query", "location"]
            }),
        ),
        10 => (
            "create_refund",
            "Refund a payment",
            json!({
                "type": "object",
                "properties": {
                    "payment_id": {"type": "string", "pattern": "^pay_[A-Za-z0-9]{14,}$"},
                    "amount": {"type": "integer", "minimum": 1, "description": "In the currency's smallest unit"},
                    "currency": {"type": "string", "enum": ["usd", "eur", "gbp", "jpy", "idr"]},
                    "reason": {"type": "string", "enum": ["duplicate", "fraudulent", "requested_by_customer"]},
                    "metadata": {"type": "object", "additionalProperties": {"type": "string"}, "maxProperties": 20}
                },
                "required": ["payment_id"]
            }),
        ),
        _ => (
            "update_ticket",
            "Update a support ticket",
            json!({
                "type": "object",
                "properties": {
                    "ticket_id": {"type": "integer", "minimum": 1},
                    "status": {"type": "string", "enum": ["open", "pending", "on_hold", "solved", "closed"]},
                    "priority": {"type": "string", "enum": ["low", "normal", "high", "urgent"]},
                    "comment": {"type": "object", "properties": {
                        "body": {"type": "string"},
                        "public": {"type": "boolean", "default": true}
                    }, "required": ["body"]},
                    "tags": {"type": "array", "items": {"type": "string"}, "uniqueItems": true},
                    "custom_fields": {"type": "array", "items": {"type": "object", "properties": {
                        "id": {"type": "integer"}, "value": {}
                    }, "required": ["id"]}}
                },
                "required": ["ticket_id"]
            }),
        ),
    }
}
