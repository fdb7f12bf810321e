//! A registry as an agent host would use it: tools with an authorizer and application state,
//! the validation errors a model sees, a parallel dispatch of a model's calls, and an audit
//! log of receipts.
//!
//! Run it with `cargo run --example registry`.

use std::sync::Arc;
use std::time::Duration;

use serde_json::{Value, json};
use toolwire::{FailureKind, Provider, Receipt, Registry, Tool, ToolCall, ToolContext, ToolResult};

/// What the host knows about the user the agent acts for.
struct Session {
    user: String,
    can_write: bool,
}

fn tools() -> Result<Vec<Tool>, toolwire::DefineError> {
    let weather = Tool::define("get_weather")
        .description("Current weather for a city")
        .kind("read")
        .parameters(json!({
            "type": "object",
            "properties": {
                "city": {"type": "string", "minLength": 1},
                "unit": {"enum": ["celsius", "fahrenheit"]}
            },
            "required": ["city"],
            "additionalProperties": false
        }))
        .execute(|args: Value, _ctx| async move {
            tokio::time::sleep(Duration::from_millis(30)).await; // the weather service
            let city = args["city"].as_str().unwrap_or_default().to_owned();
            ToolResult::ok(json!({"city": city, "temp": 21}), format!("21 degrees in {city}"))
        })
        .build()?;
    let note = Tool::define("save_note")
        .description("Save a note to the user's notebook")
        .kind("write")
        .parameters(json!({
            "type": "object",
            "properties": {"text": {"type": "string", "maxLength": 200}},
            "required": ["text"]
        }))
        .authorize_sync(|_args: &Value, ctx: &ToolContext| match ctx.state::<Session>() {
            Some(session) if session.can_write => Ok(()),
            Some(session) => Err(format!("{} may not write notes", session.user)),
            None => Err("no session".to_owned()),
        })
        .execute_sync(|args: Value, ctx: ToolContext| {
            let user = ctx.state::<Session>().map_or("nobody", |s| s.user.as_str());
            ToolResult::ok(json!({"saved": args["text"]}), format!("saved a note for {user}"))
        })
        .build()?;
    let admin = Tool::define("delete_account")
        .description("Delete the user's account")
        .active(|session: &Session| session.can_write && session.user == "root")
        .execute_sync(|_, _| ToolResult::ok(json!({}), "deleted"))
        .build()?;
    Ok(vec![weather, note, admin])
}

fn audit(receipt: &Receipt) {
    let outcome = receipt.result.failure_kind().map_or("success", FailureKind::as_str);
    println!(
        "  audit: {} {} call={} {:.1} ms -> {outcome}",
        receipt.invocation_id,
        receipt.tool,
        receipt.call_id.as_deref().unwrap_or("-"),
        receipt.duration.as_secs_f64() * 1000.0
    );
}

#[tokio::main]
async fn main() -> Result<(), Box<dyn std::error::Error>> {
    let registry = Registry::builder().register_all(tools()?).on_receipt(audit).seal()?;
    let reader = Arc::new(Session { user: "ada".into(), can_write: false });
    let writer = Arc::new(Session { user: "grace".into(), can_write: true });

    println!("== Tools offered to the model (OpenAI shape), for ada ==");
    let offered: Vec<_> = registry.definitions(Provider::OpenAi, &*reader);
    println!("{}", serde_json::to_string_pretty(&offered)?);

    println!("\n== Arguments the model got wrong, as the model sees them ==");
    let receipt =
        registry.invoke("get_weather", json!({"city": 42, "unit": "kelvin", "extra": true})).await;
    println!("{}", receipt.result.text().unwrap_or_default());

    println!("\n== A call the authorizer refuses, then allows ==");
    let denied =
        registry.invoke("save_note", json!({"text": "hi"})).state(Arc::clone(&reader)).await;
    println!("ada:   {}", denied.result.text().unwrap_or_default());
    let allowed =
        registry.invoke("save_note", json!({"text": "hi"})).state(Arc::clone(&writer)).await;
    println!("grace: {}", allowed.result.text().unwrap_or_default());

    println!("\n== A model turn with five calls, dispatched in parallel ==");
    let turn = vec![
        ToolCall::new("call_1", "get_weather", json!({"city": "Oslo"})),
        ToolCall::new("call_2", "get_weather", json!({"city": "Lima"})),
        ToolCall::new("call_3", "save_note", json!({"text": "pack an umbrella"})),
        ToolCall::new("call_4", "get_wether", json!({"city": "Rome"})),
        ToolCall::new("call_5", "delete_account", json!({})),
    ];
    let receipts =
        registry.dispatch(turn).state(writer).timeout(Duration::from_secs(2)).concurrency(8).await;
    for receipt in &receipts {
        println!("{}", serde_json::to_string(receipt)?);
    }
    Ok(())
}
