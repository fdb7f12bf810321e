//! Suspension (seed 002, example 3): pending, answer, retry.

use std::collections::HashSet;

use serde_json::{Value, json};
use toolwire::{Answer, FailureKind, Request, Tool, ToolContext, ToolResult};

/// Seed 002's deploy tool: asks which environment, then deploys on the retry.
fn deploy() -> Tool {
    Tool::define("deploy")
        .asks_for_input(true)
        .description("Deploy, asking which environment first")
        .execute(|_args: Value, ctx: ToolContext| async move {
            if let Some(answer) = ctx.answer() {
                if !answer.ok {
                    let reason = answer.reason.as_deref().unwrap_or("no reason");
                    return ToolResult::failure(format!("declined: {reason}"));
                }
                let env = answer.data["env"].as_str().unwrap_or("unknown");
                return ToolResult::ok(json!({"env": env}), format!("deployed to {env}"));
            }
            ToolResult::pending(Request::new("input", "Which environment?"))
        })
        .build()
        .unwrap()
}

#[tokio::test]
async fn seed_002_answer_is_the_second_half_of_a_suspension() {
    // First pass: a suspension, not an answer.
    let first = deploy().execute(json!({})).await;
    let req = first.pending_request().expect("a pending request");
    assert_eq!(req.kind, "input");
    assert_eq!(req.prompt, "Which environment?");
    assert!(!first.is_success());
    assert_eq!(first.failure_kind(), Some(FailureKind::Pending));

    // Second pass: the host supplies the resolution, echoing the request id.
    let answer = Answer::accept(req.id.clone(), json!({"env": "staging"}));
    let second = deploy().execute(json!({})).answer(answer).await;
    assert!(second.is_success());
    assert_eq!(second.text(), Some("deployed to staging"));

    // A refusal is a normal outcome, not a crash.
    let refused =
        deploy().execute(json!({})).answer(Answer::decline(req.id.clone(), "declined")).await;
    assert!(!refused.is_success());
    assert_eq!(refused.text(), Some("declined: declined"));
}

#[tokio::test]
async fn a_pending_result_serializes_with_the_request_in_json() {
    let request = Request::new("approval", "Deploy to prod?")
        .url("https://example.com/approve")
        .data(json!({"choices": ["yes", "no"]}))
        .expires_at("2026-12-01T00:00:00Z");
    let id = request.id.clone();
    let result = ToolResult::pending(request);
    assert_eq!(
        serde_json::to_value(&result).unwrap(),
        json!({
            "success": false,
            "json": {"pending": {
                "id": id,
                "kind": "approval",
                "prompt": "Deploy to prod?",
                "url": "https://example.com/approve",
                "data": {"choices": ["yes", "no"]},
                "expiresAt": "2026-12-01T00:00:00Z"
            }},
            "text": "Deploy to prod?"
        })
    );
    assert_eq!(result.text(), Some("Deploy to prod?"));
    let (json, text) = result.into_parts();
    assert_eq!(json["pending"]["id"], json!(id));
    assert_eq!(text.as_deref(), Some("Deploy to prod?"));
}

#[test]
fn request_keys_are_exactly_the_documented_ones() {
    let bare = Request::new("input", "Which environment?");
    let value = serde_json::to_value(&bare).unwrap();
    let keys: Vec<_> = value.as_object().unwrap().keys().cloned().collect();
    assert_eq!(keys.len(), 3);
    for key in ["id", "kind", "prompt"] {
        assert!(keys.contains(&key.to_owned()), "{key}");
    }
    let back: Request = serde_json::from_value(value).unwrap();
    assert_eq!(back, bare);
}

#[test]
fn answer_keys_are_exactly_the_documented_ones() {
    let accept = Answer::accept("req-1", json!({"env": "staging"}));
    assert_eq!(
        serde_json::to_value(&accept).unwrap(),
        json!({"id": "req-1", "ok": true, "data": {"env": "staging"}})
    );
    let decline = Answer::decline("req-1", "no");
    assert_eq!(
        serde_json::to_value(&decline).unwrap(),
        json!({"id": "req-1", "ok": false, "reason": "no"})
    );
    let parsed: Answer = serde_json::from_value(json!({"id": "r", "ok": false})).unwrap();
    assert_eq!((parsed.data, parsed.reason), (Value::Null, None));
}

#[test]
fn request_ids_are_unique() {
    let ids: HashSet<_> = (0..10_000).map(|_| Request::new("input", "?").id).collect();
    assert_eq!(ids.len(), 10_000);
}

#[tokio::test]
async fn the_answer_is_present_only_on_the_retry() {
    let tool = Tool::define("peek")
        .execute_sync(|_, ctx: ToolContext| {
            ToolResult::ok(json!({}), if ctx.answer().is_some() { "answered" } else { "fresh" })
        })
        .build()
        .unwrap();
    assert_eq!(tool.execute(json!({})).await.text(), Some("fresh"));
    let answered = tool.execute(json!({})).answer(Answer::accept("x", json!(1))).await;
    assert_eq!(answered.text(), Some("answered"));
}
