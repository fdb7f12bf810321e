//! The start-up cost of a sandboxed call against an unsandboxed one, side by side in one run:
//! `true` as the program, through `CommandTool::run`, the sandboxed one through the
//! `toolwire-launch` launcher with the default policy.
//!
//! `cargo bench -p toolwire-process --bench startup` prints them; the target is under 2 ms
//! more for the sandbox. The third case leaves out the process limit, which under root costs
//! a `pids` cgroup per call (made, joined, removed).

use std::path::PathBuf;

use criterion::{Criterion, criterion_group, criterion_main};
use serde_json::json;
use toolwire::ToolContext;
use toolwire_process::launcher::Launcher;
use toolwire_process::sandbox::{Policy, Sandbox};
use toolwire_process::{CommandSpec, CommandTool};

fn tool(sandbox: Sandbox) -> CommandTool {
    let mut spec = CommandSpec::new("true", Vec::new());
    spec.sandbox = sandbox;
    spec.launcher = Launcher::Path(PathBuf::from(env!("CARGO_BIN_EXE_toolwire-launch")));
    CommandTool::new("true", spec)
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
    let mut no_cgroup = Policy::default();
    no_cgroup.limits.processes = None;
    let cases = [
        ("unsandboxed", Sandbox::None),
        ("sandboxed", Sandbox::default()),
        ("sandboxed, no process limit", Sandbox::Policy(no_cgroup)),
    ];
    for (name, sandbox) in cases {
        let tool = tool(sandbox);
        group.bench_function(name, |b| {
            b.iter(|| {
                let result = runtime.block_on(tool.run(json!({}), ToolContext::default()));
                assert!(result.is_success(), "{:?}", result.text());
            });
        });
    }
    group.finish();
}

criterion_group!(benches, startup);
criterion_main!(benches);
