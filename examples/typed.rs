//! Typed tools and provider round trips: tools written over Rust types (one by implementing
//! `TypedTool`, one with `#[tool]`), described to every provider, and one fake model turn from each provider parsed, dispatched and answered.
//!
//! Run it with `cargo run --example typed`.

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use serde_json::{Value, json};
use toolwire::dialect::{Dialect, compile};
use toolwire::provider::{anthropic, gemini, openai, repair, responses};
use toolwire::{Provider, Registry, Tool, ToolCall, ToolContext, TypedTool, tool};

/// Arguments of `convert_currency`.
#[derive(Deserialize, JsonSchema)]
struct ConvertArgs {
    /// The amount to convert.
    amount: f64,
    /// ISO 4217 code of the currency converted from, such as "EUR".
    from: String,
    /// ISO 4217 code of the currency converted to.
    to: String,
}

#[derive(Serialize)]
struct Converted {
    amount: f64,
    currency: String,
}

struct ConvertCurrency;

impl TypedTool for ConvertCurrency {
    type Args = ConvertArgs;
    type Output = Converted;
    type Error = String;

    fn name(&self) -> &str {
        "convert_currency"
    }

    fn description(&self) -> Option<&str> {
        Some("Convert an amount between two currencies at today's rate")
    }

    async fn call(&self, args: ConvertArgs, _ctx: ToolContext) -> Result<Converted, String> {
        let rate = match (args.from.as_str(), args.to.as_str()) {
            ("EUR", "USD") => 1.08,
            ("USD", "EUR") => 0.93,
            (from, to) if from == to => 1.0,
            (from, to) => return Err(format!("no rate from {from} to {to}")),
        };
        Ok(Converted { amount: (args.amount * rate * 100.0).round() / 100.0, currency: args.to })
    }
}

/// Find flights between two airports.
#[tool]
async fn find_flights(
    /// IATA code of the departure airport.
    from: String,
    /// IATA code of the arrival airport.
    to: String,
    /// Only direct flights.
    direct_only: Option<bool>,
) -> Vec<String> {
    let stops = if direct_only == Some(true) { "direct" } else { "1 stop" };
    vec![format!("{from}→{to} 08:15 ({stops})")]
}

fn print(label: &str, value: &Value) -> Result<(), serde_json::Error> {
    println!("{label}:\n{}", serde_json::to_string_pretty(value)?);
    Ok(())
}

#[tokio::main]
async fn main() -> Result<(), Box<dyn std::error::Error>> {
    let registry = Registry::builder()
        .register(Tool::from_typed(ConvertCurrency)?)
        .register(Tool::from_typed(FindFlightsTool)?)
        .seal()?;

    println!("== One tool, described to every provider ==");
    let tool = registry.get("convert_currency").ok_or("registered above")?;
    for provider in [Provider::OpenAi, Provider::Anthropic, Provider::Gemini, Provider::Mcp] {
        print(&format!("{provider:?}"), tool.definition(provider))?;
    }

    println!("\n== Its schema in each provider's dialect, and what had to change ==");
    for dialect in [Dialect::OpenAiStrict, Dialect::AnthropicStrict, Dialect::Gemini, Dialect::Mcp]
    {
        let compiled = compile(tool.parameters(), dialect)?;
        print(&format!("{dialect:?}"), &compiled.schema)?;
        for change in &compiled.changes {
            println!("  changed {change}");
        }
    }

    println!("\n== An OpenAI chat turn ==");
    let reply = json!({"choices": [{"message": {"role": "assistant", "content": null, "tool_calls": [
        {"id": "call_1", "type": "function", "function": {"name": "convert_currency", "arguments": "{\"amount\": 100, \"from\": \"EUR\", \"to\": \"USD\"}"}},
        {"id": "call_2", "type": "function", "function": {"name": "find_flights", "arguments": "{\"from\": \"CDG\", \"to\": "}}
    ]}}]});
    let calls = openai::parse_calls(&reply)?;
    print("tool messages", &json!(openai::render_results(&answer(&registry, &calls).await)))?;

    println!("\n== An OpenAI Responses turn ==");
    let reply = json!({"output": [{"type": "function_call", "call_id": "call_9", "name": "find_flights",
        "arguments": "{\"from\": \"LIS\", \"to\": \"OSL\", \"direct_only\": true}"}]});
    let calls = responses::parse_calls(&reply)?;
    print("input items", &json!(responses::render_results(&answer(&registry, &calls).await)))?;

    println!("\n== An Anthropic turn ==");
    let reply = json!({"role": "assistant", "content": [
        {"type": "text", "text": "Converting, and looking for flights."},
        {"type": "tool_use", "id": "toolu_1", "name": "convert_currency", "input": {"amount": 50, "from": "USD", "to": "JPY"}},
        {"type": "tool_use", "id": "toolu_2", "name": "book_hotel", "input": {"city": "Oslo"}}
    ]});
    let calls = anthropic::parse_calls(&reply)?;
    print("user message", &anthropic::render_results(&answer(&registry, &calls).await))?;

    println!("\n== A Gemini turn (its calls have no ids) ==");
    let reply = json!({"candidates": [{"content": {"role": "model", "parts": [
        {"functionCall": {"name": "convert_currency", "args": {"amount": 20, "from": "USD", "to": "EUR"}}},
        {"functionCall": {"name": "find_flights", "args": {"from": "FCO"}}}
    ]}}]});
    let calls = gemini::parse_calls(&reply)?;
    print("user content", &gemini::render_results(&answer(&registry, &calls).await))?;
    Ok(())
}

/// Runs a turn's calls and returns exactly one receipt per call, in order.
async fn answer(registry: &Registry, calls: &[ToolCall]) -> Vec<toolwire::Receipt> {
    repair(calls, registry.dispatch(calls.to_vec()).await)
}
