//! The start-up cost of a sandboxed call against an unsandboxed one, side by side in one run:
//! `true` as the program, through `CommandTool::run`, the sandboxed one through the
//! `toolwire-launch` launcher with the default policy.
//!
//! `cargo bench -p toolwire-process --bench startup` prints them; the target is under 2 ms
//! more for the sandbox.
//!
//! - `paced`: a call every few milliseconds, as a model's calls come (each one timed alone,
//!   the pause between them not). From a tool's second call on, the launcher of the next call
//!   is started while the current one runs, so a paced call finds it ready.
//! - `back to back`: the next call at once, while the launcher kept for it is still starting.
//! - `first call`: a tool that has never run, whose launcher starts with the call, as in a
//!   one-shot `toolwire call`.

use std::path::PathBuf;
use std::time::{Duration, Instant};

use criterion::{Criterion, criterion_group, criterion_main};
use serde_json::json;
use toolwire::ToolContext;
use toolwire_process::launcher::Launcher;
use toolwire_process::sandbox::Sandbox;
use toolwire_process::{CommandSpec, CommandTool};

/// The pause before each paced call: longer than a launcher takes to get ready.
const PACE: Duration = Duration::from_millis(8);

fn tool(sandbox: Sandbox) -> CommandTool {
    let mut spec = CommandSpec::new("true", Vec::new());
    spec.sandbox = sandbox;
    spec.launcher = Launcher::Path(PathBuf::from(env!("CARGO_BIN_EXE_toolwire-launch")));
    CommandTool::new("true", spec)
}

fn call(runtime: &tokio::runtime::Runtime, tool: &CommandTool) {
    let result = runtime.block_on(tool.run(json!({}), ToolContext::default()));
    assert!(result.is_success(), "{:?}", result.text());
}

fn startup(c: &mut Criterion) {
    let runtime = match tokio::runtime::Builder::new_current_thread().enable_all().build() {
        Ok(runtime) => runtime,
        Err(error) => {
            eprintln!("error: no runtime: {error}");
            return;
        }
    };
    let mut group = c.benchmark_group("startup");
    for (name, sandbox) in [("unsandboxed", Sandbox::None), ("sandboxed", Sandbox::default())] {
        let tool = tool(sandbox);
        group.bench_function(format!("{name}, paced"), |b| {
            b.iter_custom(|iterations| {
                let mut spent = Duration::ZERO;
                for _ in 0..iterations {
                    std::thread::sleep(PACE);
                    let started = Instant::now();
                    call(&runtime, &tool);
                    spent += started.elapsed();
                }
                spent
            });
        });
        group.bench_function(format!("{name}, back to back"), |b| b.iter(|| call(&runtime, &tool)));
    }
    group.bench_function("sandboxed, first call", |b| {
        b.iter(|| call(&runtime, &tool(Sandbox::default())));
    });
    group.finish();
}

criterion_group!(benches, startup);
criterion_main!(benches);
