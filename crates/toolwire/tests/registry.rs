//! The sealed registry (seed 003): building, sealing, lookups, definitions, invocation and
//! receipts.

use std::future::IntoFuture;
use std::sync::{Arc, Mutex};

use serde_json::{Value, json};
use toolwire::{
    FailureKind, Provider, Receipt, Registry, SealErrorKind, Tool, ToolContext, ToolResult,
};

fn echo(name: &str) -> Tool {
    Tool::define(name)
        .description(format!("Echo for {name}"))
        .execute_sync(|args: Value, _| ToolResult::ok(args, "echo"))
        .build()
        .unwrap()
}

/// Seed 003's minimal read-only tool: a custom input parser, a text output and an output
/// parser that insists on text.
fn get_status() -> Tool {
    Tool::define("get_status")
        .kind("read")
        .description("读取演示服务状态")
        .validate_arguments(false)
        .parse_input(|value: Value| if value.is_object() { Ok(json!({})) } else { Err("需要对象") })
        .execute_sync(|_, _| ToolResult::ok(json!("服务运行正常"), "服务运行正常"))
        .parse_output(
            |result: ToolResult| {
                if result.json().is_string() { Ok(result) } else { Err("需要文本") }
            },
        )
        .build()
        .unwrap()
}

#[tokio::test]
async fn seed_003_minimal_local_read_only_tool() {
    let tools = Registry::builder().register(get_status()).seal().unwrap();
    let receipt = tools.invoke("get_status", json!({})).await;
    assert_eq!(receipt.result.json(), &json!("服务运行正常"));
    let shown = receipt.invocation_id.to_string();
    assert_eq!(shown.parse::<toolwire::InvocationId>().unwrap(), receipt.invocation_id);
    assert_eq!(tools.get("get_status").unwrap().kind(), Some("read"));

    let rejected = tools.invoke("get_status", json!([1])).await;
    assert_eq!(rejected.result.failure_kind(), Some(FailureKind::InvalidInput));
    assert_eq!(rejected.result.text(), Some("invalid arguments for \"get_status\": 需要对象"));
}

#[tokio::test]
async fn seed_003_bound_in_advance_and_invoked_from_a_workflow_node() {
    // The seed binds the sealed registry to an engine once, and a node invokes through it.
    struct Engine {
        tools: Registry,
    }
    impl Engine {
        async fn run_read_node(&self) -> Value {
            let receipt = self.tools.invoke("get_status", json!({})).await;
            json!({"answer": receipt.result.json()})
        }
    }
    let tools = Registry::builder()
        .register(
            Tool::define("get_status")
                .kind("read")
                .parse_input(|_| Ok::<_, String>(json!({})))
                .execute(|_, _| async { ToolResult::ok(json!("服务运行正常"), "ok") })
                .parse_output(Ok::<_, String>)
                .build()
                .unwrap(),
        )
        .seal()
        .unwrap();
    let agent = Engine { tools };
    assert_eq!(agent.run_read_node().await, json!({"answer": "服务运行正常"}));
}

#[test]
fn duplicate_names_fail_to_seal_naming_every_one() {
    let err = Registry::builder()
        .register(echo("a"))
        .register(echo("b"))
        .register(echo("a"))
        .register(echo("b"))
        .register(echo("a"))
        .register(echo("c"))
        .seal()
        .unwrap_err();
    assert_eq!(err.kind(), SealErrorKind::DuplicateNames);
    assert_eq!(err.names().collect::<Vec<_>>(), ["a", "b"]);
    assert_eq!(
        err.to_string(),
        r#"duplicate tool names: "a" (registered 3 times), "b" (registered 2 times)"#
    );
}

#[test]
fn lookups_and_listings() {
    let registry = Registry::builder()
        .register_all([echo("first"), echo("second")])
        .register(echo("third"))
        .seal()
        .unwrap();
    assert_eq!(registry.len(), 3);
    assert!(!registry.is_empty());
    let names: Vec<_> = registry.tools().iter().map(Tool::name).collect();
    assert_eq!(names, ["first", "second", "third"]);
    assert_eq!(registry.get("second").map(Tool::name), Some("second"));
    assert!(registry.get("fourth").is_none());
    assert!(Registry::builder().seal().unwrap().is_empty());
}

#[test]
fn a_sealed_registry_is_shared_not_copied() {
    let registry = Registry::builder().register(echo("a")).seal().unwrap();
    let clone = registry.clone();
    // Both handles reach the very same list of tools: the clone shares the sealed set.
    assert!(std::ptr::eq(registry.tools().as_ptr(), clone.tools().as_ptr()));
    std::thread::spawn(move || assert_eq!(clone.len(), 1)).join().unwrap();
}

struct App {
    plan: &'static str,
}

fn registry_with_conditions() -> Registry {
    let premium = Tool::define("premium_report")
        .active(|app: &App| app.plan == "premium")
        .as_intent()
        .execute_sync(|_, _| ToolResult::ok(json!({}), "report"))
        .build()
        .unwrap();
    let route = Tool::define("route_order")
        .as_intent()
        .execute_sync(|_, _| ToolResult::failure(""))
        .build()
        .unwrap();
    Registry::builder().register(echo("always")).register(premium).register(route).seal().unwrap()
}

#[test]
fn definitions_list_only_active_tools_in_registration_order() {
    let registry = registry_with_conditions();
    let names = |defs: Vec<&Value>| -> Vec<String> {
        defs.iter().map(|d| d["function"]["name"].as_str().unwrap().to_owned()).collect()
    };
    let free = App { plan: "free" };
    let premium = App { plan: "premium" };
    assert_eq!(names(registry.definitions(Provider::OpenAi, &free)), ["always", "route_order"]);
    assert_eq!(
        names(registry.definitions(Provider::OpenAi, &premium)),
        ["always", "premium_report", "route_order"]
    );
    // Without a state of the right type, a conditioned tool is inactive.
    assert_eq!(registry.definitions(Provider::OpenAi, &()).len(), 2);
    // Every provider shape is available the same way.
    let anthropic = registry.definitions(Provider::Anthropic, &premium);
    assert_eq!(anthropic[1]["name"], "premium_report");
    assert!(anthropic[1].get("input_schema").is_some());
    for provider in [Provider::FlatFunction, Provider::Gemini, Provider::Mcp] {
        assert_eq!(registry.definitions(provider, &premium).len(), 3);
    }
}

#[test]
fn intents_list_active_tools_marked_as_intents() {
    let registry = registry_with_conditions();
    let names =
        |tools: Vec<&Tool>| tools.into_iter().map(|t| t.name().to_owned()).collect::<Vec<_>>();
    assert_eq!(names(registry.intents(&App { plan: "free" })), ["route_order"]);
    assert_eq!(
        names(registry.intents(&App { plan: "premium" })),
        ["premium_report", "route_order"]
    );
}

#[tokio::test]
async fn an_inactive_tool_invoked_anyway_fails() {
    let registry = registry_with_conditions();
    let receipt =
        registry.invoke("premium_report", json!({})).state(Arc::new(App { plan: "free" })).await;
    assert_eq!(receipt.result.failure_kind(), Some(FailureKind::Inactive));
    assert_eq!(receipt.result.text(), Some("tool \"premium_report\" is not available right now"));
    let allowed =
        registry.invoke("premium_report", json!({})).state(Arc::new(App { plan: "premium" })).await;
    assert_eq!(allowed.result.text(), Some("report"));
}

#[tokio::test]
async fn unknown_tools_fail_naming_the_closest_known_names() {
    let registry = Registry::builder()
        .register_all(["get_weather", "get_forecast", "set_alarm"].map(echo))
        .seal()
        .unwrap();
    let receipt = registry.invoke("get_wether", json!({})).call_id("call_9").await;
    assert_eq!(receipt.result.failure_kind(), Some(FailureKind::UnknownTool));
    assert_eq!(
        receipt.result.text(),
        Some("unknown tool \"get_wether\"; did you mean \"get_weather\"?")
    );
    assert_eq!(&*receipt.tool, "get_wether");
    assert_eq!(receipt.call_id.as_deref(), Some("call_9"));

    let vague = registry.invoke("forecast", json!({})).await;
    assert_eq!(
        vague.result.text(),
        Some("unknown tool \"forecast\"; did you mean \"get_forecast\"?")
    );
    let far = registry.invoke("launch_rocket", json!({})).await;
    assert_eq!(
        far.result.text(),
        Some(
            r#"unknown tool "launch_rocket"; the tools are "get_weather", "get_forecast", "set_alarm""#
        )
    );
    let empty = Registry::builder().seal().unwrap().invoke("x", json!({})).await;
    assert_eq!(empty.result.text(), Some("unknown tool \"x\"; no tools are registered"));
}

#[tokio::test]
async fn receipts_carry_ids_timing_and_the_result_and_serialize() {
    let seen_id = Arc::new(Mutex::new(None));
    let sink = Arc::clone(&seen_id);
    let tool = Tool::define("timed")
        .execute(move |_, ctx: ToolContext| {
            *sink.lock().unwrap() = Some(ctx.invocation_id());
            async {
                tokio::time::sleep(std::time::Duration::from_millis(5)).await;
                ToolResult::ok(json!({"ok": true}), "done")
            }
        })
        .build()
        .unwrap();
    let registry = Registry::builder().register(tool).seal().unwrap();
    let before = std::time::SystemTime::now();
    let receipt = registry.invoke("timed", json!({})).call_id("call_1").await;
    assert_eq!(
        Some(receipt.invocation_id),
        *seen_id.lock().unwrap(),
        "the handler saw the same id"
    );
    assert_eq!(&*receipt.tool, "timed");
    assert!(receipt.started_at >= before - std::time::Duration::from_millis(1));
    assert!(receipt.duration >= std::time::Duration::from_millis(5));
    let json = serde_json::to_value(&receipt).unwrap();
    assert_eq!(json["invocation_id"], json!(receipt.invocation_id.to_string()));
    assert_eq!(json["tool"], "timed");
    assert_eq!(json["call_id"], "call_1");
    assert!(json["started_at"].as_str().unwrap().ends_with('Z'));
    assert!(json["duration_ns"].as_u64().unwrap() >= 5_000_000);
    assert_eq!(json["failure"], Value::Null);
    assert_eq!(json["result"], json!({"success": true, "json": {"ok": true}, "text": "done"}));
    let read: toolwire::Receipt = serde_json::from_value(json).unwrap();
    assert_eq!(read, receipt, "a receipt reads back equal");

    let other = registry.invoke("timed", json!({})).await;
    assert_ne!(other.invocation_id, receipt.invocation_id);
    assert_eq!(serde_json::to_value(&other).unwrap()["call_id"], Value::Null);
}

#[tokio::test]
async fn the_receipt_hook_sees_every_receipt_and_cannot_break_a_call() {
    let log: Arc<Mutex<Vec<String>>> = Arc::default();
    let sink = Arc::clone(&log);
    let registry = Registry::builder()
        .register(echo("a"))
        .on_receipt(move |receipt: &Receipt| {
            sink.lock().unwrap().push(format!("{}:{}", receipt.tool, receipt.result.is_success()));
            if receipt.tool.as_ref() == "missing" {
                panic!("audit log is full");
            }
        })
        .seal()
        .unwrap();
    registry.invoke("a", json!({})).await;
    let unknown = registry.invoke("missing", json!({})).await;
    assert_eq!(unknown.result.failure_kind(), Some(FailureKind::UnknownTool));
    assert_eq!(*log.lock().unwrap(), ["a:true", "missing:false"]);
}

#[tokio::test]
async fn registry_limits_replace_each_tools_own() {
    let registry = Registry::builder()
        .register(echo("a"))
        .limits(toolwire::ArgumentLimits::DEFAULT.with_max_depth(2).with_max_bytes(1024))
        .seal()
        .unwrap();
    assert!(registry.invoke("a", json!({"x": 1})).await.result.is_success());
    assert!(registry.invoke("a", json!({"x": {"y": 1}})).await.result.is_success());
    let deep = registry.invoke("a", json!({"x": {"y": [1]}})).await;
    assert_eq!(
        deep.result.text(),
        Some("invalid arguments for \"a\": /x/y: nested deeper than 2 levels")
    );
}

#[tokio::test]
async fn resolve_checks_like_a_call_and_returns_a_proposal() {
    let book = Tool::define("book_flight")
        .parameters(
            json!({"type": "object", "properties": {"to": {"type": "string"}}, "required": ["to"]}),
        )
        .resolve(|args: Value| {
            let to = args["to"].as_str().unwrap_or_default().to_uppercase();
            if to.len() == 3 {
                Ok(toolwire::Proposal::new("book_flight", json!({"airport": to})))
            } else {
                Err(format!("{to:?} is not an airport code"))
            }
        })
        .execute_sync(|_, _| -> ToolResult { panic!("resolve never executes") })
        .build()
        .unwrap();
    let registry = Registry::builder().register(book).register(echo("plain")).seal().unwrap();
    let proposal = registry.resolve("book_flight", json!({"to": "cdg"}), &()).unwrap();
    assert_eq!(proposal.input, json!({"airport": "CDG"}));
    let rejected = registry.resolve("book_flight", json!({"to": "Paris"}), &()).unwrap_err();
    assert_eq!(rejected.failure_kind(), Some(FailureKind::InvalidInput));
    let invalid = registry.resolve("book_flight", json!({"to": 1}), &()).unwrap_err();
    assert!(invalid.text().unwrap().contains("/to: 1 is not of type \"string\""));
    let unknown = registry.resolve("book_train", json!({}), &()).unwrap_err();
    assert_eq!(unknown.failure_kind(), Some(FailureKind::UnknownTool));
    // Without a resolve hook, the proposal is the tool and its arguments.
    let plain = registry.get("plain").unwrap().resolve(json!({"k": 1})).unwrap();
    assert_eq!(plain, toolwire::Proposal::new("plain", json!({"k": 1})));
}

#[tokio::test]
async fn a_panicking_active_condition_hides_the_tool_and_fails_its_calls() {
    let moody = Tool::define("moody")
        .active(|_: &App| -> bool { panic!("feature flag service down") })
        .execute_sync(|_, _| ToolResult::ok(json!({}), "ran"))
        .build()
        .unwrap();
    let registry = Registry::builder().register(moody).register(echo("steady")).seal().unwrap();
    let app = App { plan: "free" };
    assert_eq!(registry.definitions(Provider::Mcp, &app).len(), 1);
    let receipt = registry.invoke("moody", json!({})).state(Arc::new(app)).await;
    assert_eq!(receipt.result.failure_kind(), Some(FailureKind::Panic));
    assert_eq!(
        receipt.result.text(),
        Some("the active condition of tool \"moody\" panicked: feature flag service down")
    );
}

#[test]
fn listings_accept_the_state_behind_an_arc_too() {
    let registry = registry_with_conditions();
    let premium = Arc::new(App { plan: "premium" });
    assert_eq!(registry.definitions(Provider::OpenAi, &premium).len(), 3);
    assert_eq!(registry.intents(&premium).len(), 2);
}

#[tokio::test]
async fn long_and_non_ascii_unknown_names_are_clipped_not_echoed_whole() {
    let registry = Registry::builder().register(echo("meteo")).seal().unwrap();
    let close = registry.invoke("metéo", json!({})).await;
    assert_eq!(close.result.text(), Some("unknown tool \"metéo\"; did you mean \"meteo\"?"));
    let huge = "é".repeat(500_000);
    let receipt = registry.invoke(&huge, json!({})).await;
    assert!(receipt.tool.len() < 200, "the receipt keeps a clipped name");
    assert!(receipt.tool.ends_with('…'));
    let text = receipt.result.text().unwrap();
    assert!(text.len() < 400, "{}", text.len());
    assert!(text.ends_with(r#"the tools are "meteo""#), "{text}");
}

#[tokio::test]
async fn registry_limits_replace_even_a_tools_own_limits() {
    let roomy = Tool::define("roomy")
        .limits(toolwire::ArgumentLimits::DEFAULT.with_max_depth(100).with_max_bytes(1 << 20))
        .execute_sync(|args: Value, _| ToolResult::ok(args, "ok"))
        .build()
        .unwrap();
    let registry = Registry::builder()
        .register(roomy.clone())
        .limits(toolwire::ArgumentLimits::DEFAULT.with_max_depth(2).with_max_bytes(1024))
        .seal()
        .unwrap();
    let args = json!({"a": {"b": [1]}});
    assert!(roomy.execute(args.clone()).await.is_success(), "alone, the tool's limits apply");
    let receipt = registry.invoke("roomy", args).await;
    assert_eq!(receipt.result.failure_kind(), Some(FailureKind::InvalidInput));
}

#[tokio::test(start_paused = true)]
async fn dropping_an_invocation_fires_the_handlers_signal() {
    let kept: Arc<Mutex<Option<toolwire::AbortSignal>>> = Arc::default();
    let slot = Arc::clone(&kept);
    let waiter = Tool::define("waiter")
        .execute(move |_, ctx: ToolContext| {
            *slot.lock().unwrap() = Some(ctx.signal().clone());
            std::future::pending::<ToolResult>()
        })
        .build()
        .unwrap();
    let registry = Registry::builder().register(waiter).seal().unwrap();
    let call = registry.invoke("waiter", json!({}));
    let outcome =
        tokio::time::timeout(std::time::Duration::from_millis(10), call.into_future()).await;
    assert!(outcome.is_err(), "the call was still running when it was dropped");
    let signal = kept.lock().unwrap().clone().expect("the handler ran");
    assert!(signal.is_aborted(), "work the handler spawned learns nobody waits for it");
    assert_eq!(signal.reason(), Some("the call was dropped before it finished"));
}
