//! The loop's behaviour with an in-process model: limits, bad calls, a model that loops,
//! events, approvals that pause a run and resume it in a new agent, and stored runs.

use std::sync::{Arc, Mutex};

use crate::common::{Scripted, balanced, weather};
use serde_json::{Value, json};
use toolwire::policy::ApprovalKey;
use toolwire::{Answer, FailureKind, Provider, Registry, Tool, ToolCall, ToolResult};
use toolwire_agent::{Agent, AgentEvent, ErrorKind, MemoryStore, RunState, RunStore, StopReason};

fn call(id: &str, tool: &str, arguments: Value) -> ToolCall {
    ToolCall::new(id, tool, arguments)
}

fn paris(id: &str) -> ToolCall {
    call(id, "get_weather", json!({"location": "Paris"}))
}

#[tokio::test]
async fn a_run_stops_at_its_turn_limit_with_the_results_in_its_history() {
    let model = Scripted::new(
        (0..10)
            .map(|i| {
                vec![call(
                    &format!("c{i}"),
                    "get_weather",
                    json!({"location": format!("city {i}")}),
                )]
            })
            .collect(),
    );
    let outcome = Agent::builder(model, weather(None)).max_turns(3).build().run("go").await;
    assert!(matches!(outcome.stop, StopReason::TurnLimit(3)), "{:?}", outcome.stop);
    assert_eq!(outcome.receipts.len(), 3);
    assert_eq!(outcome.state.turns, 3);
    assert!(balanced(Provider::OpenAi, &outcome.state.messages));
}

#[tokio::test]
async fn a_model_that_repeats_the_same_call_is_stopped_with_a_clear_reason() {
    let model = Scripted::looping(paris("x"), 50);
    let outcome = Agent::builder(model, weather(None)).repetition_limit(3).build().run("go").await;
    let StopReason::Repetition { tool, times } = &outcome.stop else {
        panic!("{:?}", outcome.stop)
    };
    assert_eq!((tool.as_str(), *times), ("get_weather", 4));
    assert_eq!(outcome.state.turns, 4, "stopped on the first call over the limit");
    let refused = outcome.receipts.last().expect("a receipt for the refused call");
    assert_eq!(refused.result.failure_kind(), Some(FailureKind::Denied));
    assert!(refused.result.text().unwrap_or_default().contains("same arguments 4 times"));
    assert!(balanced(Provider::OpenAi, &outcome.state.messages));
}

#[tokio::test]
async fn the_same_tool_with_other_arguments_is_not_a_repetition() {
    let turns = (0..6)
        .map(|i| vec![call(&format!("c{i}"), "get_weather", json!({"location": i.to_string()}))])
        .collect();
    let outcome = Agent::builder(Scripted::new(turns), weather(None))
        .repetition_limit(1)
        .build()
        .run("go")
        .await;
    assert!(outcome.is_finished(), "{:?}", outcome.stop);
}

#[tokio::test]
async fn unknown_tools_and_bad_arguments_become_results_the_model_reads() {
    let bad_json = ToolCall::from_json_text("c3", "get_weather", "{\"location\": ");
    let turn = vec![
        call("c1", "get_wether", json!({})),
        call("c2", "get_weather", json!({"location": 42})),
        bad_json,
    ];
    let model = Scripted::new(vec![turn]);
    let requests = Arc::clone(&model.requests);
    let outcome = Agent::builder(model, weather(None)).build().run("go").await;
    assert!(outcome.is_finished(), "{:?}", outcome.stop);
    let kinds: Vec<_> = outcome.receipts.iter().map(|r| r.result.failure_kind()).collect();
    assert_eq!(
        kinds,
        [
            Some(FailureKind::UnknownTool),
            Some(FailureKind::InvalidInput),
            Some(FailureKind::InvalidInput)
        ]
    );
    let second = &requests.lock().expect("requests")[1];
    assert!(
        second[2]["content"].as_str().unwrap_or_default().contains("get_weather"),
        "the unknown tool's result names the close one: {}",
        second[2]
    );
    assert!(
        second[4]["content"].as_str().unwrap_or_default().contains("not valid JSON"),
        "{}",
        second[4]
    );
}

#[tokio::test]
async fn a_run_reports_text_calls_and_results_as_events() {
    let seen = Arc::new(Mutex::new(Vec::new()));
    let log = Arc::clone(&seen);
    let model = Scripted::new(vec![vec![paris("c1"), paris("c2")]]);
    let agent = Agent::builder(model, weather(None))
        .on_event(move |event| {
            let line = match event {
                AgentEvent::TurnStarted { turn } => format!("turn {turn}"),
                AgentEvent::TextDelta(text) => format!("text {text}"),
                AgentEvent::CallStarted(call) => format!("start {}", call.call_id),
                AgentEvent::CallFinished(receipt) => {
                    format!("finish {}", receipt.call_id.as_deref().unwrap_or(""))
                }
                _ => return,
            };
            log.lock().expect("log").push(line);
        })
        .build();
    let outcome = agent.run("go").await;
    assert!(outcome.is_finished());
    let mut lines = seen.lock().expect("log").clone();
    assert_eq!(lines.first().map(String::as_str), Some("turn 1"));
    assert_eq!(lines.last().map(String::as_str), Some("text done"));
    lines.sort();
    for expected in ["start c1", "start c2", "finish c1", "finish c2", "turn 2"] {
        assert!(lines.iter().any(|l| l == expected), "no {expected:?} in {lines:?}");
    }
}

/// A registry whose `deploy` asks for approval, keyed with `key` so other processes can
/// check the answers.
fn deployer(key: &ApprovalKey, runs: Arc<Mutex<u32>>) -> Registry {
    let deploy = Tool::define("deploy")
        .needs_approval(true)
        .execute_sync(move |args, _| {
            *runs.lock().expect("runs") += 1;
            ToolResult::ok(
                args.clone(),
                format!("deployed to {}", args["env"].as_str().unwrap_or("?")),
            )
        })
        .build()
        .expect("deploy");
    Registry::builder()
        .register(deploy)
        .register_all(weather(None).tools().to_vec())
        .approval_key(*key)
        .seal()
        .expect("registry")
}

#[tokio::test]
async fn a_pending_approval_ends_the_run_and_resumes_in_another_agent_from_json() {
    let key = ApprovalKey::random();
    let runs = Arc::new(Mutex::new(0));
    let turn = vec![call("c1", "deploy", json!({"env": "prod"})), paris("c2")];
    let asked = Arc::new(Mutex::new(Vec::new()));
    let heard = Arc::clone(&asked);
    let first = Agent::builder(Scripted::new(vec![turn]), deployer(&key, Arc::clone(&runs)))
        .on_event(move |event| {
            if let AgentEvent::ApprovalNeeded { request, .. } = event {
                heard.lock().expect("asked").push(request.id.clone());
            }
        })
        .build();
    let outcome = first.run("ship it").await;

    assert!(outcome.is_pending(), "{:?}", outcome.stop);
    assert_eq!(*runs.lock().expect("runs"), 0, "nothing deployed before the approval");
    let requests = outcome.state.requests();
    assert_eq!(requests.len(), 1);
    assert_eq!(requests[0].call_id.as_str(), "c1");
    assert_eq!(
        *asked.lock().expect("asked"),
        [requests[0].request.id.clone()],
        "one approval-needed event"
    );
    assert!(outcome.receipts[1].result.is_success(), "the call beside it ran");

    // Another process: the state travels as JSON, the agent is built anew.
    let stored = serde_json::to_string(&outcome.state).expect("state to JSON");
    let state: RunState = serde_json::from_str(&stored).expect("state from JSON");
    assert_eq!(state, outcome.state);
    // The provider is stored by its name, as states saved before it was a `Provider` have it.
    let written: Value = serde_json::from_str(&stored).expect("JSON");
    assert_eq!(written["provider"], "openai");
    let model = Scripted::new(vec![]);
    let sent = Arc::clone(&model.requests);
    let second = Agent::builder(model, deployer(&key, Arc::clone(&runs))).build();
    let resumed = second
        .resume(state, [Answer::accept(requests[0].request.id.clone(), json!(null))])
        .await
        .expect("resume");

    assert!(resumed.is_finished(), "{:?}", resumed.stop);
    assert_eq!(*runs.lock().expect("runs"), 1);
    assert_eq!(resumed.receipts[0].result.text(), Some("deployed to prod"));
    let history = &sent.lock().expect("sent")[0];
    assert!(balanced(Provider::OpenAi, history), "{history:#?}");
    assert_eq!(history[2]["tool_call_id"], "c1");
    assert_eq!(
        history[2]["content"].as_str().map(|t| t.starts_with("deployed to prod")),
        Some(true)
    );
}

#[tokio::test]
async fn a_declined_approval_goes_back_to_the_model_as_a_denial() {
    let key = ApprovalKey::random();
    let runs = Arc::new(Mutex::new(0));
    let agent = Agent::builder(
        Scripted::new(vec![vec![call("c1", "deploy", json!({"env": "prod"}))]]),
        deployer(&key, Arc::clone(&runs)),
    )
    .build();
    let outcome = agent.run("ship it").await;
    let id = outcome.state.requests()[0].request.id.clone();
    let resumed = agent
        .resume(outcome.state, [Answer::decline(id, "not on a friday")])
        .await
        .expect("resume");
    assert!(resumed.is_finished(), "{:?}", resumed.stop);
    assert_eq!(resumed.receipts[0].result.failure_kind(), Some(FailureKind::Denied));
    assert_eq!(*runs.lock().expect("runs"), 0);
}

#[tokio::test]
async fn resuming_checks_the_state_and_the_answers() {
    let key = ApprovalKey::random();
    let runs = Arc::new(Mutex::new(0));
    let agent = Agent::builder(
        Scripted::new(vec![vec![call("c1", "deploy", json!({"env": "prod"}))]]),
        deployer(&key, Arc::clone(&runs)),
    )
    .build();
    let outcome = agent.run("ship it").await;

    let stranger = Answer::accept("apr-nothing-of-ours", json!(null));
    let error =
        agent.resume(outcome.state.clone(), [stranger]).await.expect_err("no answer matches");
    assert_eq!(error.kind(), ErrorKind::Resume);

    let mut other = outcome.state.clone();
    other.provider = Provider::Anthropic;
    let error = agent.resume(other, []).await.expect_err("another provider");
    assert_eq!(error.kind(), ErrorKind::Resume);
    assert!(error.to_string().contains("anthropic:scripted"), "{error}");

    // Without answers the calls keep waiting.
    let still = agent.resume(outcome.state.clone(), []).await.expect("resume without answers");
    assert!(still.is_pending());

    let mut finished = outcome.state;
    finished.pending = None;
    assert_eq!(
        agent.resume(finished, []).await.expect_err("nothing pending").kind(),
        ErrorKind::Resume
    );
}

/// An agent with `store` whose model asks to deploy once, counting deploys in `runs`.
fn deploying(store: Arc<dyn RunStore>, runs: Arc<Mutex<u32>>) -> Agent {
    let turn = vec![call("c1", "deploy", json!({"env": "prod"}))];
    Agent::builder(Scripted::new(vec![turn]), deployer(&ApprovalKey::random(), runs))
        .store(store)
        .build()
}

#[tokio::test]
async fn a_store_keeps_a_pending_run_until_it_is_resumed() {
    let store = Arc::new(MemoryStore::new());
    let agent = deploying(store.clone(), Arc::default());
    let outcome = agent.run("ship it").await;
    assert!(outcome.is_pending());
    let run_id = outcome.state.run_id.clone();
    assert!(store.load(&run_id).await.expect("load").is_some_and(|s| s.is_pending()));

    let id = outcome.state.requests()[0].request.id.clone();
    let resumed =
        agent.resume_stored(&run_id, [Answer::accept(id, json!(null))]).await.expect("resume");
    assert!(resumed.is_finished());
    assert!(store.is_empty(), "a resumed run leaves the store");
    assert_eq!(agent.resume_stored(&run_id, []).await.expect_err("gone").kind(), ErrorKind::Store);
}

#[tokio::test]
async fn a_finished_run_can_be_continued_with_a_new_prompt() {
    let model = Scripted::new(vec![vec![paris("c1")]]);
    let requests = Arc::clone(&model.requests);
    let agent = Agent::builder(model, weather(None)).build();
    let first = agent.run("first").await;
    let second = agent.run("second").after(first.state).await;
    assert!(second.is_finished());
    let last = requests.lock().expect("requests").last().cloned().unwrap_or_default();
    assert_eq!(last.first().map(|m| m["content"].clone()), Some(json!("first")));
    assert_eq!(last.last().map(|m| m["content"].clone()), Some(json!("second")));
}

#[tokio::test]
async fn regression_max_turns_counted_per_resumption() {
    // Two turns of weather, a turn that asks for approval, then weather without end: with a
    // limit of 4, the resumed run may take one more turn, not four.
    let key = ApprovalKey::random();
    let mut turns: Vec<Vec<ToolCall>> = vec![vec![paris("c1")], vec![paris("c2")]];
    turns.push(vec![call("c3", "deploy", json!({"env": "prod"}))]);
    turns.extend(
        (4..20).map(|i| {
            vec![call(&format!("c{i}"), "get_weather", json!({"location": i.to_string()}))]
        }),
    );
    let agent = Agent::builder(Scripted::new(turns), deployer(&key, Arc::default()))
        .max_turns(4)
        .repetition_limit(0)
        .build();
    let outcome = agent.run("go").await;
    assert!(outcome.is_pending(), "{:?}", outcome.stop);
    assert_eq!((outcome.state.turns, outcome.state.prompt_turns), (3, 3));
    let id = outcome.state.requests()[0].request.id.clone();
    let resumed =
        agent.resume(outcome.state, [Answer::accept(id, json!(null))]).await.expect("resume");
    assert!(matches!(resumed.stop, StopReason::TurnLimit(4)), "{:?}", resumed.stop);
    assert_eq!(resumed.state.turns, 4, "one turn after the resume, not four");

    // A new prompt opens a new budget.
    let next = agent.run("again").after(resumed.state).await;
    assert!(matches!(next.stop, StopReason::TurnLimit(4)), "{:?}", next.stop);
    assert_eq!(next.state.turns, 8);
}

#[tokio::test]
async fn regression_calls_per_streamed_turn_are_capped() {
    let turn: Vec<ToolCall> = (0..10)
        .map(|i| call(&format!("c{i}"), "get_weather", json!({"location": i.to_string()})))
        .collect();
    let outcome = Agent::builder(Scripted::new(vec![turn]), weather(None))
        .max_calls_per_turn(4)
        .build()
        .run("go")
        .await;
    assert!(outcome.is_finished(), "{:?}", outcome.stop);
    assert_eq!(outcome.receipts.len(), 10, "every call gets a result");
    let ran = outcome.receipts.iter().filter(|r| r.result.is_success()).count();
    assert_eq!(ran, 4);
    let refused = &outcome.receipts[4].result;
    assert_eq!(refused.failure_kind(), Some(FailureKind::Denied));
    assert!(refused.text().unwrap_or_default().contains("more than 4 calls in one turn"));
    assert!(balanced(Provider::OpenAi, &outcome.state.messages));
}

/// A store that cannot forget a run, and counts the claims it lets go of.
#[derive(Default)]
struct StuckStore {
    inner: MemoryStore,
    released: Mutex<u32>,
}

impl RunStore for StuckStore {
    fn save<'a>(
        &'a self,
        state: &'a RunState,
    ) -> toolwire_agent::BoxFuture<'a, Result<(), toolwire_agent::Error>> {
        self.inner.save(state)
    }

    fn load<'a>(
        &'a self,
        run_id: &'a str,
    ) -> toolwire_agent::BoxFuture<'a, Result<Option<RunState>, toolwire_agent::Error>> {
        self.inner.load(run_id)
    }

    fn remove<'a>(
        &'a self,
        _: &'a str,
    ) -> toolwire_agent::BoxFuture<'a, Result<(), toolwire_agent::Error>> {
        Box::pin(async { Err(toolwire_agent::Error::new(ErrorKind::Store, "the disk is gone")) })
    }

    fn release<'a>(
        &'a self,
        _: &'a str,
    ) -> toolwire_agent::BoxFuture<'a, Result<(), toolwire_agent::Error>> {
        *self.released.lock().expect("released") += 1;
        Box::pin(async { Ok(()) })
    }
}

#[tokio::test]
async fn regression_claim_released_after_calls_ran() {
    let runs = Arc::new(Mutex::new(0));
    let store = Arc::new(StuckStore::default());
    let agent = deploying(store.clone(), Arc::clone(&runs));
    let outcome = agent.run("ship it").await;
    let run_id = outcome.state.run_id.clone();

    // A resume that fails before anything runs lets go of its claim.
    let stranger = Answer::accept("apr-not-ours", json!(null));
    let error = agent.resume_stored(&run_id, [stranger]).await.expect_err("no answer matches");
    assert_eq!(error.kind(), ErrorKind::Resume);
    assert_eq!(*store.released.lock().expect("released"), 1);

    // One that fails after the deploy ran keeps it, so nobody deploys again at once.
    let id = outcome.state.requests()[0].request.id.clone();
    let error = agent
        .resume_stored(&run_id, [Answer::accept(id, json!(null))])
        .await
        .expect_err("the store fails");
    assert_eq!(error.kind(), ErrorKind::Store);
    assert_eq!(*runs.lock().expect("runs"), 1);
    assert_eq!(*store.released.lock().expect("released"), 1, "the claim was kept");
}

#[tokio::test]
async fn the_hosts_meta_travels_with_the_run_state() {
    let store = Arc::new(MemoryStore::new());
    let agent = deploying(store.clone(), Arc::default());
    let meta = json!({"base_url": "http://127.0.0.1:9/v1", "max_turns": 7});
    let outcome = agent.run("ship it").meta(meta.clone()).await;
    let stored = store.load(&outcome.state.run_id).await.expect("load").expect("kept");
    assert_eq!(stored.meta, meta);
    let json = serde_json::to_value(&stored).expect("to JSON");
    assert_eq!(json["meta"], meta);
    let plain = agent.run("no meta").await;
    assert!(serde_json::to_value(&plain.state).expect("to JSON").get("meta").is_none());
}

#[tokio::test]
async fn every_call_of_a_run_is_made_as_the_agent_s_principal() {
    let whoami = Tool::define("whoami")
        .execute_sync(|_: Value, ctx| {
            let who = ctx.principal().map_or_else(|| "nobody".to_owned(), ToString::to_string);
            ToolResult::ok(json!({}), who)
        })
        .build()
        .unwrap();
    let registry = Registry::builder()
        .register(whoami)
        .policy_sync(|_, _, ctx| match ctx.principal() {
            Some(who) if who.kind() == toolwire::PrincipalKind::Agent => {
                toolwire::policy::Decision::Allow
            }
            _ => toolwire::policy::Decision::Deny("agents only".into()),
        })
        .seal()
        .unwrap();
    let turns = vec![vec![call("c1", "whoami", json!({}))], vec![call("c2", "whoami", json!({}))]];
    let agent = Agent::builder(Scripted::new(turns), registry.clone())
        .principal(toolwire::Principal::agent("ada"))
        .build();
    let outcome = agent.run("who am I?").await;
    let texts: Vec<Option<&str>> = outcome.receipts.iter().map(|r| r.result.text()).collect();
    assert_eq!(texts, [Some("agent ada"), Some("agent ada")]);
    assert!(
        outcome.receipts.iter().all(|r| r.principal == Some(toolwire::Principal::agent("ada")))
    );
    // Without it, the same calls are nobody's, and the policy denies them.
    let anonymous =
        Agent::builder(Scripted::new(vec![vec![call("c1", "whoami", json!({}))]]), registry)
            .build();
    let outcome = anonymous.run("who am I?").await;
    assert_eq!(outcome.receipts[0].result.failure_kind(), Some(FailureKind::Denied));
}
