//! A pending result reads, in every provider's rendering, as a fixed text with its prompt:
//! never its request id or data, from which a model could forge an answer.

use serde_json::{Value, json};
use toolwire::provider::{anthropic, gemini, openai, responses};
use toolwire::{Receipt, Registry, Request, Tool, ToolCall, ToolResult};

async fn pending_receipts() -> (Vec<Receipt>, Vec<String>) {
    let ask = |kind: &'static str| {
        Tool::define(format!("ask_{kind}"))
            .asks_for_input(true)
            .execute_sync(move |_: Value, _| {
                let mut request = Request::new(kind, format!("{kind} please"));
                request.data = Some(json!({"secret": "s3cret"}));
                ToolResult::pending(request)
            })
            .build()
            .unwrap()
    };
    let registry =
        Registry::builder().register(ask("approval")).register(ask("input")).seal().unwrap();
    let calls = vec![
        ToolCall::new("c1", "ask_approval", json!({})),
        ToolCall::new("c2", "ask_input", json!({})),
    ];
    let receipts = registry.dispatch(calls).await;
    let ids = receipts.iter().map(|r| r.result.pending_request().unwrap().id.clone()).collect();
    (receipts, ids)
}

fn check(rendered: &Value, ids: &[String]) {
    let text = rendered.to_string();
    assert!(text.contains("awaiting approval: approval please"), "{text}");
    assert!(text.contains("awaiting input: input please"), "{text}");
    for id in ids {
        assert!(!text.contains(id.as_str()), "the request id leaks: {text}");
    }
    assert!(!text.contains("s3cret") && !text.contains("pending"), "{text}");
}

#[tokio::test]
async fn regression_pending_result_renders_without_its_request_for_every_provider() {
    let (receipts, ids) = pending_receipts().await;
    check(&json!(openai::render_results(&receipts)), &ids);
    check(&json!(responses::render_results(&receipts)), &ids);
    check(&anthropic::render_results(&receipts), &ids);
    check(&gemini::render_results(&receipts), &ids);
    assert_eq!(
        openai::render_results(&receipts)[0]["content"],
        "awaiting approval: approval please"
    );
}
