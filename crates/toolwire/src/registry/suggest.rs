//! "Did you mean": the known names closest to an unknown one.

use std::borrow::Cow;

/// At most this many suggestions, and this many names listed when none is close.
const MAX_SUGGESTIONS: usize = 3;
const MAX_LISTED: usize = 20;

/// Names longer than this are cut short in messages and receipts; no tool has one (MCP's
/// limit is 128 characters), and a model may send anything.
const MAX_SHOWN: usize = 128;

/// `name` as shown in messages and receipts: cut at [`MAX_SHOWN`] bytes, on a character
/// boundary, with an ellipsis.
pub(super) fn shown(name: &str) -> Cow<'_, str> {
    if name.len() <= MAX_SHOWN {
        return Cow::Borrowed(name);
    }
    Cow::Owned(format!("{}…", crate::record::floor(name, MAX_SHOWN)))
}

/// The text of the failure for a call to `unknown`, naming the closest of `known`.
pub(super) fn unknown_tool_text<'a>(unknown: &str, known: impl Iterator<Item = &'a str>) -> String {
    let known: Vec<&str> = known.collect();
    // Too long to be a misspelling of any tool: comparing would only cost time.
    let close = if unknown.len() > MAX_SHOWN { Vec::new() } else { closest(unknown, &known) };
    let unknown = shown(unknown);
    if !close.is_empty() {
        return format!("unknown tool {unknown:?}; did you mean {}?", quoted(&close, " or "));
    }
    match known.len() {
        0 => format!("unknown tool {unknown:?}; no tools are registered"),
        n if n <= MAX_LISTED => {
            format!("unknown tool {unknown:?}; the tools are {}", quoted(&known, ", "))
        }
        n => format!(
            "unknown tool {unknown:?}; the tools include {} and {} more",
            quoted(&known[..MAX_LISTED], ", "),
            n - MAX_LISTED
        ),
    }
}

/// At most this many registered names are compared with an unknown one, so the cost of an
/// unknown call is bounded whatever the registry's size and the model's name.
const MAX_COMPARED: usize = 512;

/// The known names within a small edit distance of `unknown`, or containing it, closest first.
///
/// The distance is computed only for names whose length is within the budget, since the
/// distance is at least the difference in length; `unknown` is at most [`MAX_SHOWN`] bytes.
fn closest<'a>(unknown: &str, known: &[&'a str]) -> Vec<&'a str> {
    let target = unknown.to_ascii_lowercase();
    let length = target.chars().count();
    let budget = (length / 3).max(1);
    let mut scored: Vec<(usize, &str)> = known
        .iter()
        .take(MAX_COMPARED)
        .filter_map(|name| {
            let lower = name.to_ascii_lowercase();
            let contains =
                !target.is_empty() && (lower.contains(&target) || target.contains(&lower));
            let near = lower.chars().count().abs_diff(length) <= budget;
            let distance = if near { edit_distance(&target, &lower) } else { usize::MAX };
            (distance <= budget || contains).then_some((distance, *name))
        })
        .collect();
    scored.sort_by_key(|&(distance, name)| (distance, name));
    scored.into_iter().take(MAX_SUGGESTIONS).map(|(_, name)| name).collect()
}

/// The Levenshtein distance between `a` and `b`, by characters.
fn edit_distance(a: &str, b: &str) -> usize {
    let b: Vec<char> = b.chars().collect();
    let mut previous: Vec<usize> = (0..=b.len()).collect();
    let mut current = vec![0; b.len() + 1];
    for (i, ca) in a.chars().enumerate() {
        current[0] = i + 1;
        for (j, cb) in b.iter().enumerate() {
            let substitute = previous[j] + usize::from(ca != *cb);
            current[j + 1] = substitute.min(previous[j + 1] + 1).min(current[j] + 1);
        }
        std::mem::swap(&mut previous, &mut current);
    }
    previous[b.len()]
}

fn quoted(names: &[&str], separator: &str) -> String {
    names.iter().map(|name| format!("{name:?}")).collect::<Vec<_>>().join(separator)
}
