//! The quality of the tool search on real tool definitions: recall@5 of `Registry::search`
//! over the tools that published MCP servers list, for a labelled set of requests, against
//! plain BM25 over each tool's name and description alone.
//!
//! Run with `cargo bench -p toolwire-mcp --bench search_recall`. The servers are pinned in
//! `benches/tool-search/package.json` and its lockfile, installed on first use (`npm ci
//! --ignore-scripts`, which needs the npm registry), and started as `benches/tool-search/mcp.json`
//! says, with placeholder keys: listing tools needs no account. A server that does not start
//! is reported and left out, and so are the queries whose every labelled tool is its.
//!
//! The labelled set is `benches/tool-search/queries.tsv`: a request in words, then the tools
//! (`server__tool`) that answer it, written by hand from the servers' tool lists. Recall@k of
//! one query is the share of its labelled tools in the first k hits; the figure is the mean
//! over the queries.

// A benchmark that cannot set up stops: it may unwrap, expect and panic.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::Duration;

use serde_json::Value;
use toolwire::{Registry, Tool, ToolResult};
use toolwire_mcp::client::{ClientOptions, McpConfig, RemoteServer, ServerSpec};

/// The folder of the pinned servers and the labelled set.
fn folder() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../../benches/tool-search")
}

/// One labelled request.
struct Query {
    text: String,
    /// The registered names of its tools that a started server lists.
    relevant: Vec<String>,
}

fn main() {
    // `cargo bench` passes `--bench`; a test run or a listing starts nothing.
    if !std::env::args().any(|arg| arg == "--bench") {
        return;
    }
    let folder = folder();
    if !folder.join("node_modules").is_dir() {
        let status = Command::new("npm")
            .args(["ci", "--no-audit", "--no-fund", "--ignore-scripts"])
            .current_dir(&folder)
            .status()
            .expect("npm runs");
        assert!(status.success(), "npm ci failed in {}", folder.display());
    }
    let runtime = tokio::runtime::Runtime::new().unwrap();
    runtime.block_on(measure(&folder));
}

async fn measure(folder: &Path) {
    let mut config = McpConfig::from_path(folder.join("mcp.json")).unwrap();
    let names: Vec<String> = config.servers().map(|(name, _)| name.to_owned()).collect();
    for name in &names {
        let Some(ServerSpec::Stdio(stdio)) = config.get(name).cloned() else { continue };
        let mut stdio = stdio;
        if stdio.command.starts_with("node_modules/") {
            stdio.command = folder.join(&stdio.command).display().to_string();
        }
        stdio.cwd = Some(folder.to_owned());
        config.insert(name.clone(), ServerSpec::Stdio(stdio));
    }
    let options = ClientOptions::new().connect_timeout(Duration::from_secs(60));
    let connected = RemoteServer::connect_all(&config, options).await;
    let mut tools: Vec<Tool> = Vec::new();
    let mut listed: Vec<(String, String)> = Vec::new(); // (server__tool, registered name)
    let mut servers = Vec::new();
    let mut started = 0;
    for (name, connection) in names.iter().zip(connected) {
        match connection {
            Ok(server) => {
                let import = server.import();
                started += 1;
                for tool in &import.tools {
                    let original = import.names.original_name(tool.name()).unwrap_or(tool.name());
                    listed.push((original.to_owned(), tool.name().to_owned()));
                }
                println!("{name}: {} tools", import.tools.len());
                tools.extend(import.tools);
                servers.push(server);
            }
            Err(error) => println!("{name}: left out: {error}"),
        }
    }
    for server in &servers {
        server.close().await;
    }
    let registry = Registry::builder().register_all(tools.clone()).seal().unwrap();
    let plain = plain_registry(&tools);
    let queries = queries(folder, &listed);
    println!(
        "\n{} tools of {started} of {} servers; {} labelled queries with a listed tool",
        registry.len(),
        names.len(),
        queries.len()
    );
    let toolwire = |query: &str, k: usize| -> Vec<String> {
        registry.search(query, k).iter().map(|hit| hit.tool.name().to_owned()).collect()
    };
    // The plain ranker's tools are named by position, so map them back.
    let by_plain = |query: &str, k: usize| -> Vec<String> {
        let hits = plain.search(query, k);
        hits.iter()
            .filter_map(|hit| hit.tool.name().strip_prefix('t')?.parse::<usize>().ok())
            .map(|position| tools[position].name().to_owned())
            .collect()
    };
    println!("\n| ranker | recall@1 | recall@3 | recall@5 | recall@10 |");
    println!("|---|---|---|---|---|");
    for (label, rank) in [
        (
            "`Registry::search` (BM25, fields weighted, parameters)",
            &toolwire as &dyn Fn(&str, usize) -> Vec<String>,
        ),
        ("plain BM25 over name and description", &by_plain),
    ] {
        let cells: Vec<String> =
            [1, 3, 5, 10].iter().map(|&k| format!("{:.3}", recall(&queries, rank, k))).collect();
        println!("| {label} | {} |", cells.join(" | "));
    }
    println!("\nqueries whose labelled tools `Registry::search` missed in its first five:");
    for query in &queries {
        let top = toolwire(&query.text, 5);
        if !query.relevant.iter().any(|tool| top.contains(tool)) {
            println!("- {:?}: wanted {:?}, got {:?}", query.text, query.relevant, top);
        }
    }
}

/// The mean recall@k of `rank` over `queries`.
fn recall(queries: &[Query], rank: &dyn Fn(&str, usize) -> Vec<String>, k: usize) -> f64 {
    let total: f64 = queries
        .iter()
        .map(|query| {
            let top = rank(&query.text, k);
            let found = query.relevant.iter().filter(|tool| top.contains(tool)).count();
            found as f64 / query.relevant.len() as f64
        })
        .sum();
    total / queries.len() as f64
}

/// The same tools for plain BM25: named by position, so a name says nothing, with the name's
/// words (split at `_`, `-` and `.`) and the description as the one text.
fn plain_registry(tools: &[Tool]) -> Registry {
    let plain = tools.iter().enumerate().map(|(position, tool)| {
        let words = tool.name().replace(['_', '-', '.'], " ");
        let text = format!("{words} {}", tool.description().unwrap_or_default());
        Tool::define(format!("t{position}"))
            .description(text)
            .execute_sync(|_, _| ToolResult::ok(Value::Null, ""))
            .build()
            .unwrap()
    });
    Registry::builder().register_all(plain).seal().unwrap()
}

/// The labelled queries, each with its tools' registered names among `listed`; a query none
/// of whose tools is listed (its server did not start) is left out.
fn queries(folder: &Path, listed: &[(String, String)]) -> Vec<Query> {
    let text = std::fs::read_to_string(folder.join("queries.tsv")).unwrap();
    let mut queries = Vec::new();
    for line in text.lines().filter(|line| !line.starts_with('#') && !line.trim().is_empty()) {
        let (query, labels) = line.split_once('\t').unwrap_or_else(|| panic!("no tab: {line}"));
        let relevant: Vec<String> = labels
            .split_whitespace()
            .filter_map(|label| {
                listed.iter().find(|(original, _)| original == label).map(|(_, name)| name.clone())
            })
            .collect();
        if !relevant.is_empty() {
            queries.push(Query { text: query.to_owned(), relevant });
        }
    }
    queries
}
