//! toolwire's tool search against the `bm25` crate (2.3.2, its default English tokenizer with
//! stemming and stop words) over the same 10,000 made-up tools as toolwire's own `search`
//! bench, in one run: building the index, and one search once built.
//!
//! Run with `cargo bench -p peers --bench search_peers`. The crate is given, per tool, the
//! name with `_` read as spaces (its tokenizer keeps `create_issue` as one word), the
//! description and the parameters' names and descriptions: the same text toolwire indexes,
//! without toolwire's weights (name ×3, title ×2).

// A benchmark that cannot set up stops: it may unwrap, expect and panic.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

#[path = "../../../crates/toolwire/benches/support/made_up_tools.rs"]
mod made_up_tools;

use std::hint::black_box;

use bm25::{Language, SearchEngine, SearchEngineBuilder};
use criterion::{BatchSize, Criterion, criterion_group, criterion_main};
use serde_json::Value;
use toolwire::{Registry, Tool};

const QUERY: &str = "create a calendar event for the team meeting";

/// A tool's text as the crate gets it.
fn text(tool: &Tool) -> String {
    let mut text = tool.name().replace('_', " ");
    text.push(' ');
    text.push_str(tool.description().unwrap_or_default());
    let properties = tool.parameters().get("properties").and_then(Value::as_object);
    for (name, property) in properties.into_iter().flatten() {
        text.push(' ');
        text.push_str(&name.replace('_', " "));
        if let Some(description) = property.get("description").and_then(Value::as_str) {
            text.push(' ');
            text.push_str(description);
        }
    }
    text
}

fn engine(texts: &[String]) -> SearchEngine<u32> {
    SearchEngineBuilder::<u32>::with_corpus(Language::English, texts.iter().cloned()).build()
}

fn search(c: &mut Criterion) {
    let tools = made_up_tools::tools();
    let registry = Registry::builder().register_all(tools.clone()).seal().unwrap();
    let texts: Vec<String> = tools.iter().map(text).collect();
    let crate_engine = engine(&texts);
    assert!(!crate_engine.search(QUERY, 5).is_empty());
    assert!(!registry.search(QUERY, 5).is_empty());

    let mut group = c.benchmark_group("search_10k_tools_peers");
    group.sample_size(20);
    group.bench_function("toolwire_build_and_first_search", |b| {
        b.iter_batched(
            || Registry::builder().register_all(tools.clone()).seal().unwrap(),
            |fresh| black_box(fresh.search(QUERY, 5).len()),
            BatchSize::LargeInput,
        )
    });
    group.bench_function("bm25_crate_build_and_first_search", |b| {
        b.iter(|| black_box(engine(&texts).search(QUERY, 5).len()))
    });
    group.bench_function("toolwire_search", |b| {
        b.iter(|| black_box(registry.search(QUERY, 5).len()))
    });
    group.bench_function("bm25_crate_search", |b| {
        b.iter(|| black_box(crate_engine.search(QUERY, 5).len()))
    });
    group.finish();
}

criterion_group!(benches, search);
criterion_main!(benches);
