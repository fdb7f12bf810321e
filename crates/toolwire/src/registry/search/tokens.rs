//! Words for the search: lowercase runs of letters and digits, with compound names split
//! where their parts meet (`read_file`, `readFile`, `ReadFile` and `read-file` all give `read`
//! and `file`).

use std::borrow::Cow;

/// The longest word kept; longer runs are cut, so that one huge word costs no more than this.
const MAX_WORD: usize = 64;

/// Calls `each` with every word of `text`, in order.
pub(super) fn words(text: &str, mut each: impl FnMut(&str)) {
    let mut word = String::new();
    let mut previous: Option<char> = None;
    for c in text.chars() {
        if !c.is_alphanumeric() {
            flush(&mut word, &mut each);
            previous = None;
            continue;
        }
        // A lower-case letter or a digit followed by a capital starts a new part: `readFile`.
        let boundary =
            c.is_uppercase() && previous.is_some_and(|p| p.is_lowercase() || p.is_ascii_digit());
        if boundary {
            flush(&mut word, &mut each);
        }
        if word.len() < MAX_WORD {
            word.extend(c.to_lowercase());
        }
        previous = Some(c);
    }
    flush(&mut word, &mut each);
}

/// Calls `each` with every term of `text`, in order: its [`words`], less the function words
/// that say nothing of what a tool does (`the`, `to`, `a`...), each reduced to its singular
/// (`files` and `file`, `branches` and `branch`, `entities` and `entity` match).
pub(super) fn terms(text: &str, mut each: impl FnMut(&str)) {
    words(text, |word| {
        if !STOP.contains(&word) {
            each(&singular(word));
        }
    });
}

/// The function words left out of the index and of queries.
const STOP: [&str; 30] = [
    "a", "an", "and", "are", "as", "at", "be", "by", "for", "from", "i", "in", "into", "is", "it",
    "its", "me", "my", "of", "on", "or", "our", "that", "the", "this", "to", "we", "with", "you",
    "your",
];

/// `word` without an English plural ending: `-ies` reads as `-y`, `-ches`, `-shes`, `-sses`
/// and `-xes` lose `es`, and another `-s` after a letter other than `s`, `u` or `i` is dropped.
/// Words of three letters or fewer are kept as they are.
fn singular(word: &str) -> Cow<'_, str> {
    if word.len() <= 3 || !word.is_ascii() {
        return Cow::Borrowed(word);
    }
    if let Some(stem) = word.strip_suffix("ies") {
        return Cow::Owned(format!("{stem}y"));
    }
    for ending in ["ches", "shes", "sses", "xes"] {
        if word.ends_with(ending) {
            return Cow::Borrowed(&word[..word.len() - 2]);
        }
    }
    let bytes = word.as_bytes();
    match bytes[bytes.len() - 2..] {
        [b's' | b'u' | b'i', b's'] => Cow::Borrowed(word),
        [_, b's'] => Cow::Borrowed(&word[..word.len() - 1]),
        _ => Cow::Borrowed(word),
    }
}

fn flush(word: &mut String, each: &mut impl FnMut(&str)) {
    if !word.is_empty() {
        each(word);
        word.clear();
    }
}

#[cfg(test)]
mod tests {
    use super::{terms, words};

    fn all(text: &str) -> Vec<String> {
        let mut out = Vec::new();
        words(text, |w| out.push(w.to_owned()));
        out
    }

    #[test]
    fn compound_names_split_into_their_parts_in_every_spelling() {
        for name in ["read_file", "readFile", "ReadFile", "read-file", "read.file", "READ file"] {
            assert_eq!(all(name), ["read", "file"], "{name}");
        }
        assert_eq!(all("github__create_issue"), ["github", "create", "issue"]);
        assert_eq!(all("s3GetObject v2"), ["s3", "get", "object", "v2"]);
        assert_eq!(all("Größe ändern"), ["größe", "ändern"]);
        assert!(all(" ,.;  ").is_empty());
    }

    #[test]
    fn terms_leave_out_function_words_and_plural_endings() {
        let mut out = Vec::new();
        terms("List the files of my branches and entities, or an entity", |t| {
            out.push(t.to_owned())
        });
        assert_eq!(out, ["list", "file", "branch", "entity", "entity"]);
        let mut kept = Vec::new();
        terms("access status bus sms", |t| kept.push(t.to_owned()));
        assert_eq!(kept, ["access", "status", "bus", "sms"]);
    }

    #[test]
    fn a_huge_word_is_cut() {
        let words = all(&"a".repeat(10_000));
        assert_eq!(words.len(), 1);
        assert_eq!(words[0].len(), 64);
    }
}
