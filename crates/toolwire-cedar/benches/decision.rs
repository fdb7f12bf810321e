//! One call decided by 100 Cedar policies, against the same call through a registry with no
//! policy (the baseline) and with a hand-written Rust policy that decides the same way.
//!
//! `cargo bench -p toolwire-cedar --bench decision`

#![allow(clippy::expect_used, clippy::panic)]

use std::fmt::Write as _;
use std::hint::black_box;

use criterion::{BatchSize, Criterion, criterion_group, criterion_main};
use serde_json::{Value, json};
use toolwire::policy::{Decision, Policy, Ruling};
use toolwire::{Principal, Registry, Tool, ToolContext, ToolResult};
use toolwire_cedar::CedarPolicy;

/// Ten tools, each with an environment, a count and a path.
fn tools() -> Vec<Tool> {
    (0..10)
        .map(|i| {
            Tool::define(format!("tool_{i}"))
                .parameters(json!({"type": "object", "properties": {
                    "env": {"type": "string"}, "count": {"type": "integer"}, "path": {"type": "string"}
                }, "required": ["env", "count", "path"]}))
                .execute_sync(|_, _| ToolResult::ok(Value::Null, "ok"))
                .build()
                .expect("valid tool")
        })
        .collect()
}

/// 100 policies over the ten tools: per tool, permits by environment and path, limits on
/// the count, and forbids by client.
fn policies() -> String {
    let mut text = String::new();
    for i in 0..10 {
        let action = format!("action == Action::\"tool_{i}\"");
        for j in 0..5 {
            let _ = writeln!(
                text,
                "@id(\"p{i}_{j}\") permit(principal, {action}, resource) when {{ context.input.env == \"env{j}\" && context.input.path like \"dir{j}/*\" && context.input.count < {} }};",
                100 * (j + 1)
            );
        }
        for j in 0..5 {
            let _ = writeln!(
                text,
                "@id(\"f{i}_{j}\") @reason(\"client {j} is barred\") forbid(principal == Client::\"barred{j}\", {action}, resource) when {{ context.input.count > {j} }};"
            );
        }
    }
    text
}

/// `policies()` with one permit of the called tool reading `context.time`, so each call
/// makes its time.
fn policies_with_time() -> String {
    policies().replacen(
        "@id(\"p7_0\") permit(principal, action == Action::\"tool_7\", resource) when {",
        "@id(\"p7_0\") permit(principal, action == Action::\"tool_7\", resource) when { context.time > datetime(\"2020-01-01\") &&",
        1,
    )
}

/// 100 policies that all apply to every call (no action in their scope), so none is left
/// out before evaluation: the worst case.
fn policies_all_apply() -> String {
    let mut text = String::new();
    for k in 0..100 {
        let _ = writeln!(
            text,
            "@id(\"a{k}\") permit(principal, action, resource) when {{ resource.name == \"tool_{}\" && context.input.count < {} && context.input.path like \"dir{}/*\" }};",
            k % 10,
            10 * (k + 1),
            k % 4
        );
    }
    text
}

/// The same rules, written in Rust.
struct Handwritten;

impl Policy for Handwritten {
    fn decide(&self, _tool: &Tool, args: &Value, ctx: &ToolContext) -> Ruling {
        let count = args["count"].as_i64().unwrap_or(i64::MAX);
        if let Some(who) = ctx.principal()
            && let Some(j) = who.name().strip_prefix("barred").and_then(|j| j.parse::<i64>().ok())
            && count > j
        {
            return Decision::Deny(format!("client {j} is barred")).into();
        }
        let env = args["env"].as_str().unwrap_or("");
        let path = args["path"].as_str().unwrap_or("");
        for j in 0..5 {
            if env == format!("env{j}")
                && path.starts_with(&format!("dir{j}/"))
                && count < 100 * (j + 1)
            {
                return Decision::Allow.into();
            }
        }
        Decision::Deny("no rule permits it".into()).into()
    }
}

fn registry(
    policy: Option<Box<dyn FnOnce(toolwire::RegistryBuilder) -> toolwire::RegistryBuilder>>,
) -> Registry {
    let builder = tools().into_iter().fold(Registry::builder(), |b, t| b.register(t));
    match policy {
        Some(set) => set(builder),
        None => builder,
    }
    .seal()
    .expect("valid registry")
}

fn decision(c: &mut Criterion) {
    let runtime = tokio::runtime::Builder::new_current_thread().build().expect("runtime");
    let cedar = |text: String| {
        let policy = CedarPolicy::from_text(text).expect("valid policies");
        registry(Some(Box::new(move |b| b.policy(policy))))
    };
    let plain = registry(None);
    let rust = registry(Some(Box::new(|b| b.policy(Handwritten))));
    let with_cedar = cedar(policies());
    let with_time = cedar(policies_with_time());
    let all_apply = cedar(policies_all_apply());
    let args = || json!({"env": "env3", "count": 42, "path": "dir3/a/b.txt"});
    let who = Principal::client("ada");
    // All three allow the call.
    for registry in [&plain, &rust, &with_cedar, &with_time, &all_apply] {
        let receipt = runtime
            .block_on(registry.invoke("tool_7", args()).principal(who.clone()).into_future());
        assert!(receipt.result.is_success(), "{:?}", receipt.result);
    }
    let mut group = c.benchmark_group("cedar_decision");
    let cases = [
        ("invoke_no_policy", &plain),
        ("invoke_rust_policy", &rust),
        ("invoke_cedar_100_policies", &with_cedar),
        ("invoke_cedar_100_policies_reading_time", &with_time),
        ("invoke_cedar_100_policies_all_in_scope", &all_apply),
    ];
    for (name, registry) in cases {
        group.bench_function(name, |b| {
            b.iter_batched(
                args,
                |a| {
                    black_box(runtime.block_on(
                        registry.invoke("tool_7", a).principal(who.clone()).into_future(),
                    ))
                },
                BatchSize::SmallInput,
            )
        });
    }
    group.finish();
}

use std::future::IntoFuture as _;

criterion_group!(benches, decision);
criterion_main!(benches);
