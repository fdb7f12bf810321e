//! `Registry::search` over 10,000 tools: building the index (the first search), and one
//! search once it is built (and one `search_regex`, which needs no index), each against a linear scan of the same tools (every tool's
//! lowercased name and description searched for each query word, the best `k` kept), the
//! baseline a registry without an index would use.
//!
//! Run with `cargo bench -p toolwire --bench search`. The tools are made up from word lists,
//! as `server__verb_noun` with a sentence of description and two described parameters, so
//! their words repeat across tools the way published servers' do.

// A benchmark that cannot set up stops: it may unwrap, expect and panic.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use std::hint::black_box;

#[path = "support/made_up_tools.rs"]
mod made_up_tools;

use criterion::{BatchSize, Criterion, criterion_group};
use made_up_tools::{NOUNS, SERVERS, VERBS, tools};
use toolwire::{Registry, Tool};

const QUERY: &str = "create a calendar event for the team meeting";

/// The baseline: every tool's name and description, lowercased once, scanned for each word.
struct Scan {
    texts: Vec<String>,
}

impl Scan {
    fn new(tools: &[Tool]) -> Self {
        let texts = tools
            .iter()
            .map(|t| format!("{} {}", t.name(), t.description().unwrap_or("")).to_lowercase())
            .collect();
        Self { texts }
    }

    fn search(&self, query: &str, k: usize) -> Vec<usize> {
        let words: Vec<String> = query.split_whitespace().map(str::to_lowercase).collect();
        let mut hits: Vec<(usize, usize)> = self
            .texts
            .iter()
            .enumerate()
            .map(|(i, text)| (i, words.iter().filter(|w| text.contains(w.as_str())).count()))
            .filter(|(_, n)| *n > 0)
            .collect();
        hits.sort_unstable_by(|a, b| b.1.cmp(&a.1).then(a.0.cmp(&b.0)));
        hits.truncate(k);
        hits.into_iter().map(|(i, _)| i).collect()
    }
}

fn search(c: &mut Criterion) {
    let tools = tools();
    let registry = Registry::builder().register_all(tools.clone()).seal().unwrap();
    assert!(!registry.search(QUERY, 5).is_empty());
    let scan = Scan::new(&tools);

    let mut group = c.benchmark_group("search_10k_tools");
    group.bench_function("index_build_and_first_search", |b| {
        b.iter_batched(
            || fresh(&registry),
            |fresh| black_box(fresh.search(QUERY, 5).len()),
            BatchSize::LargeInput,
        )
    });
    group.bench_function("scan_baseline_build", |b| b.iter(|| black_box(Scan::new(&tools))));
    group.bench_function("search", |b| b.iter(|| black_box(registry.search(QUERY, 5).len())));
    group.bench_function("search_regex", |b| {
        b.iter(|| black_box(registry.search_regex("calendar__.*event", 5).unwrap().len()))
    });
    group.bench_function("scan_baseline_search", |b| {
        b.iter(|| black_box(scan.search(QUERY, 5).len()))
    });
    group.finish();
}

/// A registry of the same tools whose index is not built yet.
fn fresh(registry: &Registry) -> Registry {
    Registry::builder().register_all(registry.tools().to_vec()).seal().unwrap()
}

/// The p50 and p99 of 10,000 searches, each with another query, after criterion's medians: the
/// issue's bound is on the tail, which a median does not show.
fn percentiles() {
    let registry = Registry::builder().register_all(tools()).seal().unwrap();
    let scan = Scan::new(registry.tools());
    let queries: Vec<String> = (0..10_000)
        .map(|i| {
            let verb = VERBS[i % VERBS.len()];
            let noun = NOUNS[(i / VERBS.len()) % NOUNS.len()];
            let server = SERVERS[(i * 7) % SERVERS.len()];
            format!("{verb} the {noun} in {server} for the team")
        })
        .collect();
    registry.search("warm up", 5);
    let time = |search: &dyn Fn(&str) -> usize| {
        let mut took: Vec<std::time::Duration> = queries
            .iter()
            .map(|query| {
                let started = std::time::Instant::now();
                black_box(search(query));
                started.elapsed()
            })
            .collect();
        took.sort_unstable();
        (took[took.len() / 2], took[took.len() * 99 / 100])
    };
    let (p50, p99) = time(&|query| registry.search(query, 5).len());
    let (scan50, scan99) = time(&|query| scan.search(query, 5).len());
    println!(
        "search_10k_tools/10,000 queries: index p50 {p50:?} p99 {p99:?}; scan p50 {scan50:?} p99 {scan99:?}"
    );
}

criterion_group!(benches, search);

fn main() {
    benches();
    Criterion::default().configure_from_args().final_summary();
    // `cargo bench` passes `--bench`; a test run or a listing does not time anything.
    if std::env::args().any(|arg| arg == "--bench") {
        percentiles();
    }
}
