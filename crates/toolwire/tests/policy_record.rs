//! The policy step's record: the receipt says who called, how the step ended and which
//! policies decided; the span carries the same ids; a `Policy` type is set like a closure.

use serde_json::{Value, json};
use toolwire::policy::{Decision, Policy, PolicyOutcome, Ruling};
use toolwire::{
    Answer, CallOptions, FailureKind, Principal, PrincipalKind, Receipt, Registry, Request, Tool,
    ToolContext, ToolResult,
};

use toolwire_test_support::spans;

/// Allows `read`, asks for `deploy` to production, denies the rest; names each rule.
struct Rules;

impl Policy for Rules {
    fn decide(&self, tool: &Tool, args: &Value, ctx: &ToolContext) -> Ruling {
        let who = ctx.principal().map(Principal::name).unwrap_or("nobody");
        match (tool.name(), args["env"].as_str()) {
            ("read", _) => Ruling::from(Decision::Allow).by(["read-all"]),
            ("deploy", Some("prod")) => {
                Ruling::from(Decision::Ask(Request::new("approval", format!("{who} deploys"))))
                    .by(["prod-asks"])
            }
            ("deploy", _) => Ruling::from(Decision::Allow).by(["staging", "any-user"]),
            _ => Ruling::from(Decision::Deny(format!("{who} may not"))).by(["default-deny"]),
        }
    }
}

fn registry() -> Registry {
    let tool = |name: &str| {
        Tool::define(name)
            .execute_sync(|args: Value, ctx: ToolContext| {
                let who = ctx.principal().map(ToString::to_string).unwrap_or_default();
                ToolResult::ok(args, who)
            })
            .build()
            .unwrap()
    };
    Registry::builder()
        .register(tool("read"))
        .register(tool("deploy"))
        .register(tool("wipe"))
        .policy(Rules)
        .seal()
        .unwrap()
}

fn ids(receipt: &Receipt) -> Vec<&str> {
    receipt.policy.as_ref().map_or(vec![], |p| p.policies.iter().map(|s| &**s).collect())
}

#[tokio::test]
async fn receipts_name_the_principal_the_outcome_and_the_deciding_policies() {
    let registry = registry();
    let ada = Principal::client("ada");

    let read = registry.invoke("read", json!({})).principal(ada.clone()).await;
    assert!(read.result.is_success());
    assert_eq!(read.result.text(), Some("client ada"), "the handler sees the principal");
    assert_eq!(read.principal.as_ref(), Some(&ada));
    assert_eq!(read.policy.as_ref().map(|p| p.outcome), Some(PolicyOutcome::Allowed));
    assert_eq!(ids(&read), ["read-all"]);

    let wiped = registry.invoke("wipe", json!({})).principal(ada.clone()).await;
    assert_eq!(wiped.result.failure_kind(), Some(FailureKind::Denied));
    assert!(wiped.result.text().unwrap_or_default().contains("ada may not"), "{:?}", wiped.result);
    assert_eq!(wiped.policy.as_ref().map(|p| p.outcome), Some(PolicyOutcome::Denied));
    assert_eq!(ids(&wiped), ["default-deny"]);

    let options = CallOptions::new().principal(Principal::user("root"));
    let asked =
        registry.invoke("deploy", json!({"env": "prod"})).call_id("c1").options(options).await;
    assert_eq!(asked.policy.as_ref().map(|p| p.outcome), Some(PolicyOutcome::Asked));
    assert_eq!(asked.principal.as_ref().map(Principal::kind), Some(PrincipalKind::User));
    let request = asked.result.pending_request().expect("parked").clone();
    assert_eq!(request.prompt, "root deploys");

    let approved = registry
        .invoke("deploy", json!({"env": "prod"}))
        .call_id("c1")
        .answer(Answer::accept(request.id.clone(), Value::Null))
        .await;
    assert!(approved.result.is_success(), "{:?}", approved.result);
    assert_eq!(approved.policy.as_ref().map(|p| p.outcome), Some(PolicyOutcome::Approved));
    assert_eq!(ids(&approved), ["prod-asks"]);
    assert_eq!(approved.principal, None, "no principal given, none recorded");

    // The receipt reads back equal, with its principal and policy record.
    let json = serde_json::to_value(&read).unwrap();
    assert_eq!(json["principal"], json!({"kind": "client", "name": "ada"}));
    assert_eq!(json["policy"], json!({"outcome": "allowed", "policies": ["read-all"]}));
    let back: Receipt = serde_json::from_value(json).unwrap();
    assert_eq!(back, read);
}

/// An approval spent already passed the policy step's check and failed when spent: the span
/// and the receipt first said `approved` for a call that was refused.
#[test]
fn regression_a_spent_approval_presented_again_is_recorded_as_refused() {
    let registry = registry();
    let (_, closed) = spans::traced(|| {
        let runtime = tokio::runtime::Builder::new_current_thread().enable_time().build().unwrap();
        runtime.block_on(async {
            let asked = registry.invoke("deploy", json!({"env": "prod"})).call_id("c9").await;
            let id = asked.result.pending_request().expect("parked").id.clone();
            for _ in 0..2 {
                registry
                    .invoke("deploy", json!({"env": "prod"}))
                    .call_id("c9")
                    .answer(Answer::accept(id.clone(), Value::Null))
                    .await;
            }
            let replayed = registry
                .invoke("deploy", json!({"env": "prod"}))
                .call_id("c9")
                .answer(Answer::accept(id, Value::Null))
                .await;
            assert_eq!(replayed.result.failure_kind(), Some(FailureKind::Denied));
            assert_eq!(replayed.policy.as_ref().map(|p| p.outcome), Some(PolicyOutcome::Refused));
        })
    });
    let verdicts: Vec<&str> = closed
        .iter()
        .filter(|s| s.name == "execute_tool")
        .map(|s| s.fields["toolwire.policy"].as_str())
        .collect();
    assert_eq!(verdicts, ["asked", "approved", "refused", "refused"]);
}

#[tokio::test]
async fn a_registry_without_a_policy_records_none() {
    let echo = Tool::define("echo")
        .execute_sync(|args: Value, _| ToolResult::ok(args, "echo"))
        .build()
        .unwrap();
    let registry = Registry::builder().register(echo).seal().unwrap();
    let receipt = registry.invoke("echo", json!({})).await;
    assert_eq!(receipt.policy, None);
    let json = serde_json::to_value(&receipt).unwrap();
    assert!(json.get("policy").is_none() && json.get("principal").is_none(), "{json}");
}

#[test]
fn the_span_carries_the_deciding_policy_ids() {
    let registry = registry();
    let (_, closed) = spans::traced(|| {
        let runtime = tokio::runtime::Builder::new_current_thread().enable_time().build().unwrap();
        runtime.block_on(async {
            registry.invoke("deploy", json!({"env": "staging"})).await;
            registry.invoke("wipe", json!({})).await;
        })
    });
    let fields: Vec<(&str, &str)> = closed
        .iter()
        .filter(|s| s.name == "execute_tool")
        .map(|s| (s.fields["toolwire.policy"].as_str(), s.fields["toolwire.policy.ids"].as_str()))
        .collect();
    assert_eq!(fields, [("allowed", "staging,any-user"), ("denied", "default-deny")]);
}

#[tokio::test]
async fn an_async_policy_closure_may_return_a_ruling() {
    let echo = Tool::define("echo")
        .execute_sync(|args: Value, _| ToolResult::ok(args, "echo"))
        .build()
        .unwrap();
    let registry = Registry::builder()
        .register(echo)
        .policy_async(|_, _, _| async {
            Ruling::from(Decision::Deny("closed".into())).by(["shut"])
        })
        .seal()
        .unwrap();
    let receipt = registry.invoke("echo", json!({})).await;
    assert_eq!(receipt.result.failure_kind(), Some(FailureKind::Denied));
    assert_eq!(ids(&receipt), ["shut"]);
}

/// The answer's giver is named where the answer decided: an approval that ran the call, and a
/// decline.
#[tokio::test]
async fn the_approver_is_named_on_the_call_the_answer_decided() {
    let registry = registry();
    let ana = Principal::user("ana");
    let ask = |call: &'static str| registry.invoke("deploy", json!({"env": "prod"})).call_id(call);
    let request = ask("a1").await.result.pending_request().expect("parked").id.clone();
    let approved = ask("a1").answer(Answer::accept(request, Value::Null).by(ana.clone())).await;
    let record = approved.policy.as_deref().expect("a record");
    assert_eq!(record.outcome, PolicyOutcome::Approved);
    assert_eq!(record.answered_by.as_ref(), Some(&ana));
    assert!(record.answered_at.is_some());
    let json = serde_json::to_value(&approved).unwrap();
    assert_eq!(json["policy"]["answered_by"], json!({"kind": "user", "name": "ana"}));

    let request = ask("a2").await.result.pending_request().expect("parked").id.clone();
    let declined = ask("a2").answer(Answer::decline(request, "no").by(ana.clone())).await;
    let record = declined.policy.as_deref().expect("a record");
    assert_eq!(record.outcome, PolicyOutcome::Refused);
    assert_eq!(record.answered_by.as_ref(), Some(&ana));
}

/// A call refused for another reason than its answer (a policy's denial, an answer forged or
/// spent) named the answer's giver as if they had refused it.
#[tokio::test]
async fn regression_the_approver_was_named_on_a_call_the_answer_did_not_decide() {
    let registry = registry();
    let ana = Principal::user("ana");
    let forged = Answer::accept("apr-forged", Value::Null).by(ana.clone());
    let denied = registry.invoke("wipe", json!({})).answer(forged.clone()).await;
    let record = denied.policy.as_deref().expect("a record");
    assert_eq!(record.outcome, PolicyOutcome::Denied);
    assert_eq!(record.answered_by, None);

    let refused =
        registry.invoke("deploy", json!({"env": "prod"})).call_id("f1").answer(forged).await;
    let record = refused.policy.as_deref().expect("a record");
    assert_eq!(record.outcome, PolicyOutcome::Refused);
    assert_eq!(record.answered_by, None, "a forged approval names nobody");
}
