//! An inverted index of the registry's tools, ranked by BM25 over weighted fields (BM25F with
//! one length per document): a word in a tool's name counts three times, in its title twice,
//! in its description once, and in a parameter's name or description half. Words are the
//! tokenizer's terms: compound names split, function words left out, plurals made singular.

use std::collections::HashMap;

use rustc_hash::FxBuildHasher;
use serde_json::Value;

use super::tokens::terms;
use crate::tool::Tool;

/// BM25's term-frequency saturation.
const K1: f32 = 1.2;
/// BM25's length normalisation: lower than the usual 0.75, so that a tool is not marked down
/// much for a long schema (on the labelled set of `benches/tool-search`, 0.5 ranked better at
/// every cut-off; see `BENCHMARKS.md`).
const B: f32 = 0.5;
/// The weight of a word by where it appears: a parameter's name or description counts half
/// of the description, since schemas repeat generic words (ids, pages, limits).
const NAME: f32 = 3.0;
const TITLE: f32 = 2.0;
const TEXT: f32 = 1.0;
const PARAMETER: f32 = 0.5;
/// How deep parameter schemas are read (`properties` within `properties`).
const MAX_DEPTH: usize = 4;
/// The most distinct words of a query that count; the rest are ignored.
pub(crate) const MAX_QUERY_WORDS: usize = 64;

/// The postings of one word: each tool it appears in, with its weighted frequency there.
type Postings = Vec<(u32, f32)>;

/// The index, built once per registry, on its first search.
pub(crate) struct Index {
    postings: HashMap<Box<str>, Postings, FxBuildHasher>,
    /// Each tool's weighted length, in registration order.
    lengths: Vec<f32>,
    average: f32,
    /// Each tool's description and parameters' names and descriptions, one per line, for
    /// [`Registry::search_regex`](crate::Registry::search_regex).
    pub(crate) texts: Vec<Box<str>>,
}

impl Index {
    /// Indexes `tools`, in registration order.
    pub(crate) fn new(tools: &[Tool]) -> Self {
        let mut postings: HashMap<Box<str>, Postings, FxBuildHasher> = HashMap::default();
        let mut lengths = Vec::with_capacity(tools.len());
        let mut counts: HashMap<String, f32, FxBuildHasher> = HashMap::default();
        let mut texts = Vec::with_capacity(tools.len());
        for (position, tool) in tools.iter().enumerate() {
            counts.clear();
            let mut text = String::new();
            // The name and the title are matched apart by a pattern; the rest as one text.
            let mut add = |part: &str, weight: f32| {
                if weight < TITLE {
                    text.push_str(part);
                    text.push('\n');
                }
                terms(part, |word| match counts.get_mut(word) {
                    Some(count) => *count += weight,
                    None => {
                        counts.insert(word.to_owned(), weight);
                    }
                });
            };
            add(tool.name(), NAME);
            if let Some(title) = &tool.annotations().title {
                add(title, TITLE);
            }
            if let Some(description) = tool.description() {
                add(description, TEXT);
            }
            parameters(tool.parameters(), 0, &mut add);
            texts.push(text.into_boxed_str());
            lengths.push(counts.values().sum());
            let position = u32::try_from(position).unwrap_or(u32::MAX);
            for (word, frequency) in counts.drain() {
                postings.entry(word.into_boxed_str()).or_default().push((position, frequency));
            }
        }
        let average = if lengths.is_empty() {
            1.0
        } else {
            (lengths.iter().sum::<f32>() / lengths.len() as f32).max(f32::MIN_POSITIVE)
        };
        Self { postings, lengths, average, texts }
    }

    /// The positions of the `k` tools that best match `query`, best first, with their scores;
    /// only tools that share a word with the query.
    /// Tools whose position `keep` refuses are left out before the `k` are taken.
    pub(crate) fn search(
        &self,
        query: &str,
        k: usize,
        keep: impl Fn(usize) -> bool,
    ) -> Vec<(usize, f32)> {
        if k == 0 || self.lengths.is_empty() {
            return Vec::new();
        }
        let mut wanted: Vec<String> = Vec::new();
        terms(query, |word| {
            if wanted.len() < MAX_QUERY_WORDS && !wanted.iter().any(|t| t == word) {
                wanted.push(word.to_owned());
            }
        });
        let mut scores = vec![0.0f32; self.lengths.len()];
        let total = self.lengths.len() as f32;
        for term in &wanted {
            let Some(postings) = self.postings.get(term.as_str()) else { continue };
            let found = postings.len() as f32;
            let idf = (1.0 + (total - found + 0.5) / (found + 0.5)).ln();
            for &(position, frequency) in postings {
                let position = position as usize;
                let length = self.lengths[position] / self.average;
                let norm = K1 * (1.0 - B + B * length);
                scores[position] += idf * frequency * (K1 + 1.0) / (frequency + norm);
            }
        }
        let mut hits: Vec<(usize, f32)> =
            scores.into_iter().enumerate().filter(|&(i, score)| score > 0.0 && keep(i)).collect();
        let by_score =
            |a: &(usize, f32), b: &(usize, f32)| b.1.total_cmp(&a.1).then_with(|| a.0.cmp(&b.0));
        if hits.len() > k {
            hits.select_nth_unstable_by(k - 1, by_score);
            hits.truncate(k);
        }
        hits.sort_unstable_by(by_score);
        hits
    }
}

/// Feeds the names and descriptions of the properties of `schema` to `add`, nested ones too.
fn parameters(schema: &Value, depth: usize, add: &mut impl FnMut(&str, f32)) {
    if depth > MAX_DEPTH {
        return;
    }
    let Some(properties) = schema.get("properties").and_then(Value::as_object) else { return };
    for (name, property) in properties {
        add(name, PARAMETER);
        if let Some(description) = property.get("description").and_then(Value::as_str) {
            add(description, PARAMETER);
        }
        parameters(property, depth + 1, add);
        if let Some(items) = property.get("items") {
            parameters(items, depth + 1, add);
        }
    }
}
