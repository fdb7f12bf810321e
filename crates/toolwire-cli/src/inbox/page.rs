//! The inbox's HTML, rendered on the server from compiled templates (maud), which escape
//! every value: an argument holding markup or script shows as text.

use maud::{DOCTYPE, Markup, html};
use serde_json::Value;
use toolwire::Receipt;

use super::access::Caller;
use super::items::{Item, Kind};

/// The waiting page: every item, newest first, as of the event `event`.
pub(crate) fn waiting(caller: &Caller, event: &str, items: &[Item]) -> String {
    let body = html! {
        p #empty hidden[!items.is_empty()] { "Nothing waits for an answer." }
        ul #waiting data-event=(event) {
            @for item in items { (item_markup(item)) }
        }
    };
    layout("Waiting", caller, Some(items.len()), body).into_string()
}

/// One waiting item, as the page lists it and the event stream sends it.
pub(crate) fn item_html(item: &Item) -> String {
    item_markup(item).into_string()
}

fn item_markup(item: &Item) -> Markup {
    let tool = &item.tool;
    html! {
        li.item data-call-id=(item.call_id) data-request-id=(item.request_id)
            data-kind=(kind_name(item.kind)) {
            div.head {
                // The name is what runs; a title is only what the tool says of itself.
                h2 { code.name { (tool.name) } }
                @if let Some(title) = &tool.title { span.title { (title) } }
                @if tool.destructive { span.badge.destructive { "destructive" } }
                @if tool.read_only { span.badge.read-only { "read-only" } }
                @if !tool.known { span.badge.unknown { "not in the manifest" } }
            }
            @if let Some(description) = &tool.description { p.description { (description) } }
            p.prompt { (item.prompt) }
            @if item.fields.is_empty() {
                pre.arguments { (pretty(&item.arguments)) }
            } @else {
                table.arguments {
                    @for field in &item.fields {
                        tr.field data-field=(field.name) {
                            th { (field.name) @if field.required { span.required title="required" { "*" } } }
                            td.value {
                                @if field.given { code { (compact(&field.value)) } }
                                @else { span.absent { "not given" } }
                            }
                            td.describe { @if let Some(d) = &field.description { (d) } }
                        }
                    }
                }
            }
            p.meta {
                "Asked by " span.asked-by { (item.asked_by) }
                ", " time datetime=(item.asked_at) { (item.asked_at) }
                @if let Some(expires) = &item.expires_at {
                    " · expires " time.expires datetime=(expires) { (expires) }
                }
            }
            @if let Some(said) = &item.model_text {
                blockquote.model-text { (said) }
            }
            form.answer data-request-id=(item.request_id) {
                // The form's default button, disabled: Enter in a field sends nothing, and
                // never approves (the first real button would be Approve).
                button.default type="submit" disabled hidden aria-hidden="true" {}
                @if let Some(form) = &item.form { (form_fields(form)) }
                label.reason { "Reason (if declining) " input type="text" name="reason" maxlength="2000"; }
                div.buttons {
                    @if item.form.is_some() {
                        button type="submit" name="action" value="submit" { "Submit" }
                    } @else {
                        button.approve type="submit" name="action" value="approve" { "Approve" }
                    }
                    // Declining needs no field filled in.
                    button.decline type="submit" name="action" value="decline" formnovalidate { "Decline" }
                }
            }
            p.status role="status" {}
        }
    }
}

/// The inputs of a form an MCP server or a handler asked for, from its schema.
fn form_fields(schema: &Value) -> Markup {
    let empty = serde_json::Map::new();
    let fields = schema.get("properties").and_then(Value::as_object).unwrap_or(&empty);
    let required: Vec<&str> = (schema.get("required").and_then(Value::as_array))
        .map(|names| names.iter().filter_map(Value::as_str).collect())
        .unwrap_or_default();
    html! {
        fieldset.form {
            @for (name, field) in fields {
                @let kind = field.get("type").and_then(Value::as_str).unwrap_or("string");
                @let label = field.get("title").and_then(Value::as_str).unwrap_or(name);
                @let needed = required.contains(&name.as_str());
                @let default = field.get("default");
                label.form-field {
                    span { (label) @if needed { span.required { "*" } } }
                    @if let Some(choices) = field.get("enum").and_then(Value::as_array) {
                        select data-field=(name) data-type=(kind) required[needed] {
                            @for choice in choices {
                                @let text = compact(choice);
                                option value=(text) selected[Some(choice) == default] { (text) }
                            }
                        }
                    } @else if kind == "boolean" {
                        input type="checkbox" data-field=(name) data-type="boolean"
                            checked[default == Some(&Value::Bool(true))];
                    } @else if kind == "number" || kind == "integer" {
                        input type="number" data-field=(name) data-type=(kind)
                            step=(if kind == "integer" { "1" } else { "any" })
                            value=[default.map(compact)] required[needed];
                    } @else {
                        input type="text" data-field=(name) data-type="string"
                            value=[default.and_then(Value::as_str)] required[needed];
                    }
                    @if let Some(d) = field.get("description").and_then(Value::as_str) {
                        small { (d) }
                    }
                }
            }
        }
    }
}

/// A row of the history: a receipt, and what the page shows of it.
pub(crate) fn history(
    caller: &Caller,
    receipts: &[Receipt],
    tool: Option<&str>,
    outcome: Option<&str>,
) -> String {
    let outcomes = ["", "ok", "failed", "pending", "unknown", "approved", "refused", "denied"];
    let body = html! {
        form.filter method="get" action="/history" {
            label { "Tool " input type="text" name="tool" value=[tool]; }
            label { "Outcome "
                select name="outcome" {
                    @for choice in outcomes {
                        option value=(choice) selected[outcome.unwrap_or("") == choice] {
                            (if choice.is_empty() { "any" } else { choice })
                        }
                    }
                }
            }
            button type="submit" { "Filter" }
        }
        table #history {
            thead { tr {
                th { "Started" } th { "Tool" } th { "Call" } th { "Called by" }
                th { "Policy" } th { "Outcome" } th { "Answered by" } th { "Answered at" }
                th { "Result" }
            } }
            tbody {
                @for receipt in receipts {
                    @let policy = receipt.policy.as_deref();
                    tr.receipt data-call-id=[receipt.call_id.as_ref().map(|c| c.as_str())]
                        data-outcome=(super::api::outcome_of(receipt)) {
                        td { (humantime::format_rfc3339_seconds(receipt.started_at)) }
                        td { (receipt.tool) }
                        td { code { (receipt.call_id.as_ref().map_or("-", |c| c.as_str())) } }
                        td { (receipt.principal.as_ref().map_or_else(|| "-".to_owned(), ToString::to_string)) }
                        td { (policy.map_or_else(|| "-".to_owned(), |p| p.outcome.to_string())) }
                        td.outcome { (super::api::outcome_of(receipt)) }
                        td.answered-by { (policy.and_then(|p| p.answered_by.as_ref()).map_or_else(|| "-".to_owned(), ToString::to_string)) }
                        td { (policy.and_then(|p| p.answered_at.as_deref()).unwrap_or("-")) }
                        td.result { (receipt.result.text().unwrap_or_default()) }
                    }
                }
            }
        }
    };
    layout("History", caller, None, body).into_string()
}

/// The page around `body`.
fn layout(title: &str, caller: &Caller, waiting: Option<usize>, body: Markup) -> Markup {
    html! {
        (DOCTYPE)
        html lang="en" {
            head {
                meta charset="utf-8";
                meta name="viewport" content="width=device-width, initial-scale=1";
                @if let Some(csrf) = &caller.csrf { meta name="csrf-token" content=(csrf); }
                title { (title) " · toolwire inbox" }
                link rel="stylesheet" href="/assets/inbox.css";
                script src="/assets/inbox.js" defer {}
            }
            body {
                header {
                    h1 { "toolwire inbox" }
                    nav {
                        a href="/" { "Waiting" @if let Some(n) = waiting { " (" span #count { (n) } ")" } }
                        a href="/history" { "History" }
                    }
                    span.who { "Signed in as " (caller.who) }
                }
                main { (body) }
            }
        }
    }
}

fn kind_name(kind: Kind) -> &'static str {
    match kind {
        Kind::Call => "call",
        Kind::Run => "run",
        Kind::Task => "task",
        Kind::McpCall => "mcp_call",
    }
}

/// A value on one line: a string as itself, anything else as JSON.
fn compact(value: &Value) -> String {
    match value {
        Value::String(text) => text.clone(),
        other => other.to_string(),
    }
}

/// A value laid out over lines.
fn pretty(value: &Value) -> String {
    serde_json::to_string_pretty(value).unwrap_or_default()
}

#[cfg(test)]
mod tests {
    use super::compact;

    #[test]
    fn markup_in_a_value_is_escaped_in_the_page() {
        let value = serde_json::json!("<script>alert(1)</script>");
        let rendered = maud::html! { code { (compact(&value)) } }.into_string();
        assert_eq!(rendered, "<code>&lt;script&gt;alert(1)&lt;/script&gt;</code>");
    }
}
