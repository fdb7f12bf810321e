//! The inbox's items: every request in the journal that waits for a human, with what the
//! page and the API show of it.

use std::time::SystemTime;

use serde::Serialize;
use serde_json::{Map, Value};
use toolwire::{Registry, Request};
use toolwire_journal::PendingFilter;

use crate::exit::CliError;
use crate::journal::Journal;

/// Who is waiting on a request, and so what an answer to it must do.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub(crate) enum Kind {
    /// A journaled call (`toolwire call --call-id` that exited 3): the inbox runs it.
    Call,
    /// A call of a paused agent run: the inbox continues the run once all its calls have
    /// answers.
    Run,
    /// An MCP task: its server goes on at the client's next `tasks/get`.
    Task,
    /// An MCP call with no task: the client's next retry runs with the answer.
    McpCall,
}

/// One request that waits, as the page and `GET /api/waiting` show it.
#[derive(Debug, Clone, Serialize)]
pub(crate) struct Item {
    /// The request's id: what an answer names.
    pub(crate) request_id: String,
    /// The waiting call's id.
    pub(crate) call_id: String,
    /// Who waits.
    pub(crate) kind: Kind,
    /// The tool called.
    pub(crate) tool: ToolFacts,
    /// The call's arguments, as given.
    pub(crate) arguments: Value,
    /// The arguments laid out by the tool's schema, with each field's description.
    pub(crate) fields: Vec<Field>,
    /// What sort of answer is wanted: `approval`, or `input` for a question.
    pub(crate) request_kind: String,
    /// The question.
    pub(crate) prompt: String,
    /// The schema of the form to fill in, for a question that asks for one.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub(crate) form: Option<Value>,
    /// Who asked, in words: a command, an agent run, an MCP client.
    pub(crate) asked_by: String,
    /// The model's last words before the call, for a call of an agent run.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub(crate) model_text: Option<String>,
    /// When it started waiting, RFC 3339.
    pub(crate) asked_at: String,
    /// When the request lapses, RFC 3339, if it does.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub(crate) expires_at: Option<String>,
    /// The paused run, for a call of one.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub(crate) run_id: Option<String>,
    /// The MCP task, for a task.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub(crate) task_id: Option<String>,
    /// When it started waiting, for ordering.
    #[serde(skip)]
    pub(crate) since: SystemTime,
}

/// What the inbox shows of a tool.
#[derive(Debug, Clone, Default, Serialize)]
pub(crate) struct ToolFacts {
    /// Its name.
    pub(crate) name: String,
    /// Its title, if it has one.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub(crate) title: Option<String>,
    /// Its description, if it has one.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub(crate) description: Option<String>,
    /// Whether it may destroy data (MCP's cautious default when unsaid).
    pub(crate) destructive: bool,
    /// Whether it only reads.
    pub(crate) read_only: bool,
    /// Whether the manifest still has it.
    pub(crate) known: bool,
}

/// One argument, laid out by the tool's schema.
#[derive(Debug, Clone, Serialize)]
pub(crate) struct Field {
    /// The argument's name.
    pub(crate) name: String,
    /// Its value, `null` when it was not given.
    pub(crate) value: Value,
    /// The schema's description of it.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub(crate) description: Option<String>,
    /// Whether the schema requires it.
    pub(crate) required: bool,
    /// Whether the call gave it.
    pub(crate) given: bool,
}

/// Every request in `journal` that waits for an answer, newest first.
///
/// # Errors
///
/// A journal that cannot be read.
pub(crate) async fn gather(journal: &Journal, registry: &Registry) -> Result<Vec<Item>, CliError> {
    let library = journal.library();
    let failed = |e: toolwire_journal::JournalError| CliError::usage(format!("journal: {e}"));
    let mut items = Vec::new();
    for waiting in library.pending(&PendingFilter::all()).await.map_err(failed)? {
        if waiting.answer.is_some() {
            continue; // answered: its resume is under way, or up to whoever answered
        }
        let call = &waiting.call;
        items.push(item(
            registry,
            Base {
                request: waiting.request,
                call_id: call.call_id.to_string(),
                tool: &call.tool,
                arguments: call.arguments.clone(),
                kind: Kind::Call,
                asked_by: "a command (toolwire call --call-id)".to_owned(),
                since: waiting.suspended_at,
            },
        ));
    }
    for run in library.runs().await.map_err(failed)? {
        let state = serde_json::from_value::<toolwire_agent::RunState>(run.state.clone()).ok();
        let pending = state.as_ref().and_then(|s| s.pending.as_ref());
        let model_text = pending.map(|turn| said(&turn.assistant)).filter(|t| !t.is_empty());
        for wait in run.waiting.iter().filter(|wait| wait.answer.is_none()) {
            // The call whose pending receipt asks this very request: a model may give two
            // calls one id, and each card must show the arguments its answer is bound to.
            let arguments = pending
                .and_then(|turn| {
                    let at = turn.receipts.iter().position(|receipt| {
                        receipt.result.pending_request().is_some_and(|r| r.id == wait.request.id)
                    })?;
                    turn.calls.get(at)
                })
                .map_or(Value::Null, |call| call.arguments.clone());
            let mut item = item(
                registry,
                Base {
                    request: wait.request.clone(),
                    call_id: wait.call_id.clone(),
                    tool: &wait.tool,
                    arguments,
                    kind: Kind::Run,
                    asked_by: format!("agent run {} ({})", run.run_id, run.label),
                    since: run.created_at,
                },
            );
            item.model_text.clone_from(&model_text);
            item.run_id = Some(run.run_id.clone());
            items.push(item);
        }
    }
    for task in library.waiting_tasks().await.map_err(failed)? {
        let toolwire::tasks::TaskState::InputRequired { request } = &task.state else { continue };
        let parked = toolwire_mcp::server::is_parked_call(&task.id);
        let (kind, asked_by) = match parked {
            true => (Kind::McpCall, "an MCP client (its retry runs the call)".to_owned()),
            false => (Kind::Task, format!("an MCP client's task {}", task.id)),
        };
        // A parked call's record keeps no arguments; its approval request carries them.
        let arguments = match &task.arguments {
            Value::Null => request.data.as_ref().and_then(|d| d.get("arguments")).cloned(),
            kept => Some(kept.clone()),
        };
        let mut item = item(
            registry,
            Base {
                request: request.clone(),
                call_id: task.call_id.clone(),
                tool: &task.tool,
                arguments: arguments.unwrap_or(Value::Null),
                kind,
                asked_by,
                since: task.updated_at,
            },
        );
        item.task_id = (!parked).then(|| task.id.clone());
        items.push(item);
    }
    items.sort_by(|a, b| b.since.cmp(&a.since).then_with(|| a.request_id.cmp(&b.request_id)));
    Ok(items)
}

/// What every kind of waiting call has.
struct Base<'a> {
    request: Request,
    call_id: String,
    tool: &'a str,
    arguments: Value,
    kind: Kind,
    asked_by: String,
    since: SystemTime,
}

fn item(registry: &Registry, base: Base<'_>) -> Item {
    let found = registry.get(base.tool);
    let tool = match found {
        Some(tool) => {
            let hints = tool.annotations();
            ToolFacts {
                name: base.tool.to_owned(),
                title: hints.title.clone(),
                description: tool.description().map(str::to_owned),
                destructive: hints
                    .destructive_hint
                    .unwrap_or(!hints.read_only_hint.unwrap_or(false)),
                read_only: hints.read_only_hint.unwrap_or(false),
                known: true,
            }
        }
        None => ToolFacts { name: base.tool.to_owned(), ..ToolFacts::default() },
    };
    let fields = found.map_or_else(Vec::new, |tool| fields(tool.parameters(), &base.arguments));
    let form = crate::form::fields(&base.request).and(base.request.data.clone());
    // To the second, as the rest of the page shows time.
    let expires_at = base.request.expires_at.as_deref().map(|at| {
        humantime::parse_rfc3339_weak(at)
            .map_or_else(|_| at.to_owned(), |t| humantime::format_rfc3339_seconds(t).to_string())
    });
    Item {
        request_id: base.request.id,
        call_id: base.call_id,
        kind: base.kind,
        tool,
        arguments: base.arguments,
        fields,
        request_kind: base.request.kind,
        prompt: base.request.prompt,
        form,
        asked_by: base.asked_by,
        model_text: None,
        asked_at: humantime::format_rfc3339_seconds(base.since).to_string(),
        expires_at,
        run_id: None,
        task_id: None,
        since: base.since,
    }
}

/// The arguments laid out by `schema`: its properties in its order, then any argument it
/// does not name.
fn fields(schema: &Value, arguments: &Value) -> Vec<Field> {
    let empty = Map::new();
    let given = arguments.as_object().unwrap_or(&empty);
    let properties = schema.get("properties").and_then(Value::as_object).unwrap_or(&empty);
    let required: Vec<&str> = (schema.get("required").and_then(Value::as_array))
        .map(|names| names.iter().filter_map(Value::as_str).collect())
        .unwrap_or_default();
    let mut fields: Vec<Field> = properties
        .iter()
        .map(|(name, property)| Field {
            name: name.clone(),
            value: given.get(name).cloned().unwrap_or(Value::Null),
            description: property.get("description").and_then(Value::as_str).map(str::to_owned),
            required: required.contains(&name.as_str()),
            given: given.contains_key(name),
        })
        .collect();
    fields.extend(given.iter().filter(|(name, _)| !properties.contains_key(*name)).map(
        |(name, value)| Field {
            name: name.clone(),
            value: value.clone(),
            description: None,
            required: false,
            given: true,
        },
    ));
    fields
}

/// The text a model's turn said, in any provider's wire shape: its `text` strings, and its
/// `content` when that is a string.
fn said(messages: &[Value]) -> String {
    fn walk(value: &Value, into: &mut Vec<String>) {
        match value {
            Value::Object(map) => {
                for (key, value) in map {
                    match (key.as_str(), value) {
                        ("text" | "content", Value::String(text)) if !text.trim().is_empty() => {
                            into.push(text.trim().to_owned());
                        }
                        _ => walk(value, into),
                    }
                }
            }
            Value::Array(values) => values.iter().for_each(|v| walk(v, into)),
            _ => {}
        }
    }
    let mut texts = Vec::new();
    messages.iter().for_each(|m| walk(m, &mut texts));
    texts.join("\n")
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::{fields, said};

    #[test]
    fn arguments_are_laid_out_in_the_schema_s_order_then_the_rest() {
        let schema = json!({
            "type": "object",
            "properties": {"env": {"type": "string", "description": "Where"}, "why": {}},
            "required": ["env"]
        });
        let laid = fields(&schema, &json!({"extra": 1, "env": "prod"}));
        let names: Vec<&str> = laid.iter().map(|f| f.name.as_str()).collect();
        assert_eq!(names, ["env", "why", "extra"]);
        assert_eq!(laid[0].description.as_deref(), Some("Where"));
        assert!(laid[0].required && laid[0].given);
        assert!(!laid[1].given && laid[1].value.is_null());
    }

    #[test]
    fn a_model_s_words_are_read_from_any_provider_s_turn() {
        let anthropic = json!({"role": "assistant", "content": [
            {"type": "text", "text": "Deploying now."},
            {"type": "tool_use", "id": "t", "name": "deploy", "input": {"env": "prod"}}
        ]});
        let openai = json!({"role": "assistant", "content": "Let me check.", "tool_calls": []});
        assert_eq!(said(&[anthropic]), "Deploying now.");
        assert_eq!(said(&[openai]), "Let me check.");
    }
}
