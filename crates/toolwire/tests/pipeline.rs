//! The execution pipeline: every step's short-circuit, every failure kind, and the order of
//! the hooks (DESIGN "Execution pipeline", seed 003).

use std::sync::{Arc, Mutex};
use std::time::Duration;

use serde_json::{Value, json};
use toolwire::{
    AbortController, FailureKind, Registry, Tool, ToolBuilder, ToolContext, ToolResult,
};

/// The steps a call went through, in order.
#[derive(Clone, Default)]
struct Steps(Arc<Mutex<Vec<&'static str>>>);

impl Steps {
    fn push(&self, step: &'static str) {
        self.0.lock().unwrap().push(step);
    }
    fn taken(&self) -> Vec<&'static str> {
        std::mem::take(&mut *self.0.lock().unwrap())
    }
}

struct App {
    enabled: bool,
    admin: bool,
}

fn app(enabled: bool, admin: bool) -> Arc<App> {
    Arc::new(App { enabled, admin })
}

/// A tool with every hook, each recording itself. The handler fails when `fail` is set;
/// the output parser rejects outputs with `"bad": true`.
fn recorded(steps: &Steps) -> Tool {
    let s = steps.clone();
    let tool = Tool::define("recorded")
        .parameters(json!({
            "type": "object",
            "properties": {"n": {"type": "integer"}, "fail": {"type": "boolean"}, "bad": {"type": "boolean"}},
            "required": ["n"]
        }))
        .active({
            let s = s.clone();
            move |app: &App| {
                s.push("active");
                app.enabled
            }
        })
        .parse_input({
            let s = s.clone();
            move |args: Value| {
                s.push("parse_input");
                Ok::<_, String>(args)
            }
        })
        .authorize_sync({
            let s = s.clone();
            move |args: &Value, ctx: &ToolContext| {
                s.push("authorize");
                assert!(args["n"].is_i64(), "authorize only ever sees validated input");
                match ctx.state::<App>() {
                    Some(app) if app.admin => Ok(()),
                    _ => Err("admins only"),
                }
            }
        });
    finish(tool, &s)
}

fn finish(tool: ToolBuilder, s: &Steps) -> Tool {
    let (h, p, d) = (s.clone(), s.clone(), s.clone());
    tool.execute_sync(move |args: Value, _| {
        h.push("handler");
        if args["fail"] == json!(true) {
            return ToolResult::failure("handler failed");
        }
        ToolResult::ok(args, "ran")
    })
    .parse_output(move |result: ToolResult| {
        p.push("parse_output");
        if result.json()["bad"] == json!(true) { Err("bad output") } else { Ok(result) }
    })
    .debug_steps(move |_, _| d.push("debug_steps"))
    .build()
    .unwrap()
}

async fn call(tool: &Tool, args: Value, state: Arc<App>) -> ToolResult {
    tool.execute(args).state(state).await
}

#[tokio::test]
async fn a_good_call_passes_every_step_in_order() {
    let steps = Steps::default();
    let tool = recorded(&steps);
    let result = call(&tool, json!({"n": 1}), app(true, true)).await;
    assert_eq!(result.text(), Some("ran"));
    assert_eq!(
        steps.taken(),
        ["active", "parse_input", "authorize", "handler", "parse_output", "debug_steps"]
    );
}

#[tokio::test]
async fn a_pre_aborted_call_runs_no_step_at_all() {
    let steps = Steps::default();
    let tool = recorded(&steps);
    let ctl = AbortController::new();
    ctl.abort_with("stop");
    let result = tool.execute(json!({"n": 1})).state(app(true, true)).signal(ctl.signal()).await;
    assert_eq!(result.failure_kind(), Some(FailureKind::Aborted));
    assert!(steps.taken().is_empty());
}

#[tokio::test]
async fn an_inactive_tool_stops_before_validation() {
    let steps = Steps::default();
    let result = call(&recorded(&steps), json!({"n": "not even valid"}), app(false, true)).await;
    assert_eq!(result.failure_kind(), Some(FailureKind::Inactive));
    assert_eq!(steps.taken(), ["active"]);
}

#[tokio::test]
async fn invalid_input_never_reaches_the_parser_the_authorizer_or_the_handler() {
    let steps = Steps::default();
    let tool = recorded(&steps);
    for args in [json!({"n": "one"}), json!({}), json!([1]), json!("text"), json!(3)] {
        let result = call(&tool, args.clone(), app(true, true)).await;
        assert_eq!(result.failure_kind(), Some(FailureKind::InvalidInput), "{args}");
        assert_eq!(steps.taken(), ["active"], "{args}");
    }
}

#[tokio::test]
async fn a_denial_carries_its_reason_and_the_handler_never_runs() {
    let steps = Steps::default();
    let result = call(&recorded(&steps), json!({"n": 1}), app(true, false)).await;
    assert_eq!(result.failure_kind(), Some(FailureKind::Denied));
    assert_eq!(result.text(), Some("permission denied for \"recorded\": admins only"));
    assert_eq!(steps.taken(), ["active", "parse_input", "authorize", "debug_steps"]);
}

#[tokio::test]
async fn a_failed_handler_result_skips_the_output_parser() {
    let steps = Steps::default();
    let result = call(&recorded(&steps), json!({"n": 1, "fail": true}), app(true, true)).await;
    assert_eq!(result.failure_kind(), Some(FailureKind::Handler));
    assert_eq!(steps.taken(), ["active", "parse_input", "authorize", "handler", "debug_steps"]);
}

#[tokio::test]
async fn a_rejected_output_is_an_invalid_output_failure() {
    let steps = Steps::default();
    let result = call(&recorded(&steps), json!({"n": 1, "bad": true}), app(true, true)).await;
    assert_eq!(result.failure_kind(), Some(FailureKind::InvalidOutput));
    assert_eq!(result.text(), Some("invalid output from \"recorded\": bad output"));
}

#[tokio::test]
async fn parsers_can_transform_input_and_output() {
    let tool = Tool::define("shout")
        .parameters(json!({"type": "object", "properties": {"word": {"type": "string"}}, "required": ["word"]}))
        .parse_input(|mut args: Value| {
            let word = args["word"].as_str().unwrap_or_default().trim().to_owned();
            if word.is_empty() {
                return Err("word must not be blank".to_owned());
            }
            args["word"] = json!(word);
            Ok(args)
        })
        .execute_sync(|args: Value, _| ToolResult::ok(args["word"].clone(), "said"))
        .parse_output(|result: ToolResult| {
            let loud = result.json().as_str().unwrap_or_default().to_uppercase();
            Ok::<_, String>(ToolResult::ok(json!(loud), format!("{loud}!")))
        })
        .build()
        .unwrap();
    let result = tool.execute(json!({"word": "  hi "})).await;
    assert_eq!((result.json(), result.text()), (&json!("HI"), Some("HI!")));
    let blank = tool.execute(json!({"word": "  "})).await;
    assert_eq!(blank.text(), Some("invalid arguments for \"shout\": word must not be blank"));
}

#[tokio::test]
async fn panicking_hooks_are_failures_naming_the_hook() {
    let base = || Tool::define("fragile").execute_sync(|_, _| ToolResult::ok(json!({}), "ok"));
    let authorizer =
        base().authorize_sync(|_, _| -> Result<(), String> { panic!("auth backend down") });
    let input = base().parse_input(|_| -> Result<Value, String> { panic!("parser bug") });
    let output = base().parse_output(|_| -> Result<ToolResult, String> { panic!("cache corrupt") });
    for (builder, expected) in [
        (authorizer, "the authorizer of tool \"fragile\" panicked: auth backend down"),
        (input, "the input parser of tool \"fragile\" panicked: parser bug"),
        (output, "the output parser of tool \"fragile\" panicked: cache corrupt"),
    ] {
        let result = builder.build().unwrap().execute(json!({})).await;
        assert_eq!(result.failure_kind(), Some(FailureKind::Panic));
        assert_eq!(result.text(), Some(expected));
    }
    let debug = base().debug_steps(|_, _| panic!("logger broke")).build().unwrap();
    assert_eq!(debug.execute(json!({})).await.text(), Some("ok"), "debug steps only observe");
}

fn async_guarded(delay: Duration) -> Tool {
    Tool::define("guarded")
        .authorize(move |args: Value, ctx: ToolContext| async move {
            tokio::time::sleep(delay).await;
            let admin = ctx.state::<App>().is_some_and(|app| app.admin);
            if admin || args["override"] == json!(true) { Ok(()) } else { Err("not an admin") }
        })
        .execute(|_, _| async { ToolResult::ok(json!({}), "guarded work done") })
        .build()
        .unwrap()
}

#[tokio::test(start_paused = true)]
async fn an_async_authorizer_allows_or_denies() {
    let tool = async_guarded(Duration::from_millis(10));
    let allowed = tool.execute(json!({})).state(app(true, true)).await;
    assert_eq!(allowed.text(), Some("guarded work done"));
    let denied = tool.execute(json!({})).state(app(true, false)).await;
    assert_eq!(denied.text(), Some("permission denied for \"guarded\": not an admin"));
    let overridden = tool.execute(json!({"override": true})).await;
    assert!(overridden.is_success());
}

#[tokio::test(start_paused = true)]
async fn an_async_authorizer_is_raced_against_the_signal_and_the_deadline() {
    let tool = async_guarded(Duration::from_secs(3600));
    let timed = tool.execute(json!({})).timeout(Duration::from_millis(20)).await;
    assert!(timed.is_timed_out());
    let ctl = AbortController::new();
    let call = tokio::spawn(std::future::IntoFuture::into_future(
        tool.execute(json!({})).signal(ctl.signal()),
    ));
    tokio::time::sleep(Duration::from_millis(5)).await;
    ctl.abort_with("user left");
    assert_eq!(call.await.unwrap().text(), Some("user left"));
}

#[tokio::test]
async fn an_async_authorizer_works_with_a_sync_handler_and_panics_are_caught() {
    let tool = Tool::define("mixed")
        .authorize(|_, _| async { Ok::<_, String>(()) })
        .execute_sync(|_, _| ToolResult::ok(json!({}), "sync after async"))
        .build()
        .unwrap();
    assert_eq!(tool.execute(json!({})).await.text(), Some("sync after async"));
    let broken = Tool::define("broken")
        .authorize(|_, _| async { panic!("auth service exploded") as Result<(), String> })
        .execute_sync(|_, _| ToolResult::ok(json!({}), "never"))
        .build()
        .unwrap();
    let result = broken.execute(json!({})).await;
    assert_eq!(result.failure_kind(), Some(FailureKind::Panic));
    assert_eq!(
        result.text(),
        Some("the authorizer of tool \"broken\" panicked: auth service exploded")
    );
}

#[tokio::test]
async fn validation_can_be_turned_off_but_limits_still_apply() {
    let tool = Tool::define("self_checking")
        .parameters(
            json!({"type": "object", "properties": {"n": {"type": "integer"}}, "required": ["n"]}),
        )
        .validate_arguments(false)
        .execute_sync(|args: Value, _| ToolResult::ok(args, "took it"))
        .build()
        .unwrap();
    let result = tool.execute(json!({"n": "not an integer"})).await;
    assert_eq!(result.text(), Some("took it"));
    let mut deep = json!(1);
    for _ in 0..100 {
        deep = json!([deep]);
    }
    let result = tool.execute(json!({"deep": deep})).await;
    assert_eq!(result.failure_kind(), Some(FailureKind::InvalidInput));
}

#[tokio::test]
async fn the_handler_reads_the_typed_state() {
    let tool = Tool::define("whoami")
        .execute_sync(|_, ctx: ToolContext| {
            let text = match (ctx.state::<App>(), ctx.state::<String>()) {
                (Some(app), None) => format!("admin={}", app.admin),
                (None, Some(name)) => format!("name={name}"),
                _ => "no state".to_owned(),
            };
            ToolResult::ok(json!({}), text)
        })
        .build()
        .unwrap();
    assert_eq!(tool.execute(json!({})).state(app(true, true)).await.text(), Some("admin=true"));
    assert_eq!(
        tool.execute(json!({})).state(Arc::new("ada".to_owned())).await.text(),
        Some("name=ada")
    );
    assert_eq!(tool.execute(json!({})).await.text(), Some("no state"));
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn many_tasks_invoke_one_registry_at_once() {
    let steps = Steps::default();
    let registry = Registry::builder().register(recorded(&steps)).seal().unwrap();
    let tasks: Vec<_> = (0..1000)
        .map(|i| {
            let registry = registry.clone();
            tokio::spawn(async move {
                let receipt = registry
                    .invoke("recorded", json!({"n": i}))
                    .call_id(format!("call_{i}"))
                    .state(app(true, i % 2 == 0))
                    .await;
                (i, receipt)
            })
        })
        .collect();
    for task in tasks {
        let (i, receipt) = task.await.unwrap();
        assert_eq!(receipt.call_id.as_deref(), Some(format!("call_{i}").as_str()));
        if i % 2 == 0 {
            assert_eq!(receipt.result.json()["n"], json!(i));
        } else {
            assert_eq!(receipt.result.failure_kind(), Some(FailureKind::Denied));
        }
    }
}

#[tokio::test]
async fn an_async_denial_never_runs_the_handler() {
    let ran = Arc::new(Mutex::new(false));
    let flag = Arc::clone(&ran);
    let tool = Tool::define("locked")
        .authorize(|_, _| async { Err::<(), _>("locked for maintenance") })
        .execute(move |_, _| {
            *flag.lock().unwrap() = true;
            async { ToolResult::ok(json!({}), "ran") }
        })
        .build()
        .unwrap();
    let result = tool.execute(json!({})).await;
    assert_eq!(result.failure_kind(), Some(FailureKind::Denied));
    assert!(!*ran.lock().unwrap());
}

#[tokio::test]
async fn hooks_run_in_order_around_an_async_handler_too() {
    let steps = Steps::default();
    let (a, p, h, o, d) =
        (steps.clone(), steps.clone(), steps.clone(), steps.clone(), steps.clone());
    let tool = Tool::define("async_recorded")
        .active(move |_: &App| {
            a.push("active");
            true
        })
        .parse_input(move |args: Value| {
            p.push("parse_input");
            Ok::<_, String>(args)
        })
        .authorize(move |_, _| {
            let h = h.clone();
            async move {
                h.push("authorize");
                tokio::task::yield_now().await;
                Ok::<_, String>(())
            }
        })
        .execute({
            let s = steps.clone();
            move |_, _| {
                let s = s.clone();
                async move {
                    s.push("handler");
                    ToolResult::ok(json!({}), "ran")
                }
            }
        })
        .parse_output(move |r: ToolResult| {
            o.push("parse_output");
            Ok::<_, String>(r)
        })
        .debug_steps(move |_, _| d.push("debug_steps"))
        .build()
        .unwrap();
    assert!(call(&tool, json!({}), app(true, true)).await.is_success());
    assert_eq!(
        steps.taken(),
        ["active", "parse_input", "authorize", "handler", "parse_output", "debug_steps"]
    );
}
