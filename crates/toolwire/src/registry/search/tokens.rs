//! Words for the search: lowercase runs of letters and digits, with compound names split
//! where their parts meet (`read_file`, `readFile`, `ReadFile` and `read-file` all give `read`
//! and `file`).

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

fn flush(word: &mut String, each: &mut impl FnMut(&str)) {
    if !word.is_empty() {
        each(word);
        word.clear();
    }
}

#[cfg(test)]
mod tests {
    use super::words;

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
    fn a_huge_word_is_cut() {
        let words = all(&"a".repeat(10_000));
        assert_eq!(words.len(), 1);
        assert_eq!(words[0].len(), 64);
    }
}
