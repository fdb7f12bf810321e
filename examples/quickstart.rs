//! A first tour of toolwire: define two tools, describe them to OpenAI and Anthropic, and run
//! calls with progress events, an abort, a timeout and a suspension that a "human" answers.
//!
//! Run it with `cargo run --example quickstart`.

use std::future::IntoFuture;
use std::time::Duration;

use serde_json::{Value, json};
use toolwire::{AbortController, Answer, Request, Tool, ToolContext, ToolResult};

/// A weather tool that reports progress while it "fetches" each day of a forecast.
fn forecast() -> Result<Tool, toolwire::DefineError> {
    Tool::define("get_forecast")
        .description("Get the weather forecast for a city")
        .parameters(json!({
            "type": "object",
            "properties": {
                "city": {"type": "string", "description": "City name, e.g. Jakarta"},
                "days": {"type": "integer", "minimum": 1, "maximum": 7}
            },
            "required": ["city"]
        }))
        .input_examples(vec![json!({"city": "Jakarta", "days": 2})])
        .execute(|args: Value, ctx: ToolContext| async move {
            let city = args["city"].as_str().unwrap_or("nowhere").to_owned();
            let days = args["days"].as_u64().unwrap_or(1);
            let mut temps = Vec::new();
            for day in 1..=days {
                tokio::time::sleep(Duration::from_millis(20)).await; // the "network"
                temps.push(26 + day);
                ctx.progress(day, days, &format!("fetched day {day} for {city}"));
            }
            ToolResult::ok(
                json!({"city": city, "temps": temps}),
                format!("{days}-day forecast for {city}"),
            )
        })
        .build()
}

/// A deploy tool that asks a human which environment before it acts.
fn deploy() -> Result<Tool, toolwire::DefineError> {
    Tool::define("deploy")
        .asks_for_input(true)
        .description("Deploy the service, asking which environment first")
        .execute_sync(|_args: Value, ctx: ToolContext| match ctx.answer() {
            None => ToolResult::pending(
                Request::new("input", "Which environment?")
                    .data(json!({"choices": ["staging", "prod"]})),
            ),
            Some(answer) if answer.ok => {
                let env = answer.data["env"].as_str().unwrap_or("staging");
                ToolResult::ok(json!({"env": env}), format!("deployed to {env}"))
            }
            Some(answer) => ToolResult::failure(format!(
                "not deployed: {}",
                answer.reason.as_deref().unwrap_or("declined")
            )),
        })
        .build()
}

fn show(label: &str, result: &ToolResult) {
    let kind = result.failure_kind().map_or("success".to_owned(), |kind| kind.to_string());
    println!("{label}: [{kind}] {}", serde_json::to_string(result).unwrap_or_default());
}

#[tokio::main]
async fn main() -> Result<(), Box<dyn std::error::Error>> {
    let forecast = forecast()?;
    let deploy = deploy()?;

    println!("== OpenAI tools ==");
    println!("{}", serde_json::to_string_pretty(&[forecast.to_openai(), deploy.to_openai()])?);
    println!("== Anthropic tools ==");
    println!(
        "{}",
        serde_json::to_string_pretty(&[forecast.to_anthropic(), deploy.to_anthropic()])?
    );

    println!("\n== A call with progress events ==");
    let result = forecast
        .execute(json!({"city": "Jakarta", "days": 3}))
        .on_event(|event| println!("  event: {event}"))
        .await;
    show("forecast", &result);

    println!("\n== Arguments the model got wrong ==");
    show("forecast", &forecast.execute(json!({"city": 42, "days": 9})).await);

    println!("\n== An aborted call ==");
    let ctl = AbortController::new();
    let call = tokio::spawn(
        forecast.execute(json!({"city": "Oslo", "days": 7})).signal(ctl.signal()).into_future(),
    );
    tokio::time::sleep(Duration::from_millis(30)).await;
    ctl.abort_with("User cancelled");
    show("forecast", &call.await?);

    println!("\n== A timed-out call ==");
    let result = forecast
        .execute(json!({"city": "Lima", "days": 7}))
        .timeout(Duration::from_millis(50))
        .await;
    show("forecast", &result);

    println!("\n== A suspension, answered and resumed ==");
    let first = deploy.execute(json!({})).await;
    show("deploy (first pass)", &first);
    if let Some(request) = first.pending_request() {
        println!("  the host asks a human: {} (request {})", request.prompt, request.id);
        let answer = Answer::accept(request.id.clone(), json!({"env": "staging"}));
        show("deploy (resumed)", &deploy.execute(json!({})).answer(answer).await);
    }
    Ok(())
}
