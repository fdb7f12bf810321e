//! A durable approval: a call asks a human before it deploys, the process "restarts", and a
//! new journal instance lists the request, answers it and resumes the call, which runs once.
//!
//! ```sh
//! cargo run --example journal
//! ```

use serde_json::json;
use toolwire::{Answer, Registry, Tool, ToolResult};
use toolwire_journal::{Journal, PendingFilter};

/// The registry every process builds: the same tools, sealed with the journal's key.
fn registry(journal: &Journal) -> Result<Registry, Box<dyn std::error::Error>> {
    let deploy = Tool::define("deploy")
        .description("Deploy a service")
        .needs_approval(true)
        .execute_sync(|args, _| {
            ToolResult::ok(args.clone(), format!("deployed {}", args["service"]))
        })
        .build()?;
    Ok(Registry::builder().register(deploy).approval_key(journal.approval_key()).seal()?)
}

#[tokio::main]
async fn main() -> Result<(), Box<dyn std::error::Error>> {
    let dir = tempfile::tempdir()?;
    let url = format!("sqlite:{}", dir.path().join("calls.db").display());

    // The first process: the model asks to deploy; the call waits for a human.
    let journal = Journal::open(&url).await?;
    let tools = registry(&journal)?;
    let args = json!({"service": "api"});
    let parked = journal.invoke(&tools, "deploy", args.clone()).call_id("call_1").await?;
    println!("waiting: {}", parked.result.text().unwrap_or_default());
    journal.close().await;

    // A later process, after a restart: list, answer, resume.
    let journal = Journal::open(&url).await?;
    let tools = registry(&journal)?;
    for waiting in journal.pending(&PendingFilter::all().kind("approval")).await? {
        println!("{} asks: {} {}", waiting.call.call_id, waiting.call.tool, waiting.call.arguments);
        journal.answer(Answer::accept(waiting.request.id.clone(), json!(null))).await?;
        let done = journal.resume(&tools, &waiting.request.id).await?;
        println!("resumed: {}", done.result.text().unwrap_or_default());
    }

    // The model's call id delivered again (a retried request): replayed, not run again.
    let again = journal.invoke(&tools, "deploy", args).call_id("call_1").await?;
    println!("replayed: {}", again.result.text().unwrap_or_default());
    journal.close().await;
    Ok(())
}
