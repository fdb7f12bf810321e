//! Reading policies: a file, every `.cedar` file of a folder, or a text; each policy's id
//! (its `@id`, or its file and line) and place, for messages.

use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::str::FromStr;

use cedar_policy::{Effect, Policy, PolicyId, PolicySet};
use miette::Diagnostic;

use crate::error::{CedarError, CedarErrorKind, Place};

/// Where a policy set comes from, to read it again on reload.
#[derive(Debug, Clone)]
pub(crate) enum Origin {
    /// A file, or a folder of `.cedar` files.
    Path(PathBuf),
    /// A text given in code, named for messages.
    Text { name: String, text: String },
}

/// One file's text.
#[derive(Debug, Clone)]
pub(crate) struct File {
    pub(crate) name: String,
    pub(crate) text: String,
}

/// A parsed policy set, with each policy's place and the annotations toolwire reads.
#[derive(Debug)]
pub(crate) struct Policies {
    pub(crate) set: PolicySet,
    pub(crate) files: Vec<File>,
    /// Each policy's file (an index into `files`) and byte offset.
    pub(crate) places: HashMap<PolicyId, (usize, usize)>,
    /// The ids in the order the files list them.
    pub(crate) order: Vec<PolicyId>,
    /// The `@ask` and `@reason` annotations, read once: Cedar parses the key of every
    /// annotation lookup.
    notes: HashMap<PolicyId, Notes>,
}

/// The annotations toolwire reads from one policy.
#[derive(Debug, Default)]
struct Notes {
    ask: Option<String>,
    reason: Option<String>,
}

impl Policies {
    /// The place of `offset..offset + len` in the file of `id`, or of the policy itself.
    pub(crate) fn place(&self, id: &PolicyId, span: Option<(usize, usize)>) -> Option<Place> {
        let (file, start) = *self.places.get(id)?;
        let file = self.files.get(file)?;
        let (offset, len) = span.unwrap_or((start, 6));
        Some(Place::at(&file.name, &file.text, offset, len))
    }

    /// The policy's `@ask` annotation (`""` for a bare `@ask`), if it has one.
    pub(crate) fn ask(&self, id: &PolicyId) -> Option<&str> {
        self.notes.get(id)?.ask.as_deref()
    }

    /// The policy's `@reason` annotation, if it has one.
    pub(crate) fn reason(&self, id: &PolicyId) -> Option<&str> {
        self.notes.get(id)?.reason.as_deref()
    }
}

/// Reads the texts of `origin`: a folder's `.cedar` files in name order.
pub(crate) fn read(origin: &Origin) -> Result<Vec<File>, CedarError> {
    let path = match origin {
        Origin::Text { name, text } => {
            return Ok(vec![File { name: name.clone(), text: text.clone() }]);
        }
        Origin::Path(path) => path,
    };
    let unreadable = |path: &Path, e: std::io::Error| {
        CedarError::new(CedarErrorKind::Read, format!("cannot read {}: {e}", path.display()))
    };
    if !path.is_dir() {
        let text = std::fs::read_to_string(path).map_err(|e| unreadable(path, e))?;
        return Ok(vec![File { name: path.display().to_string(), text }]);
    }
    let mut paths = Vec::new();
    for entry in std::fs::read_dir(path).map_err(|e| unreadable(path, e))? {
        let entry = entry.map_err(|e| unreadable(path, e))?;
        let file = entry.path();
        if file.extension().is_some_and(|ext| ext == "cedar") && file.is_file() {
            paths.push(file);
        }
    }
    paths.sort();
    if paths.is_empty() {
        let why = format!("{} holds no .cedar files", path.display());
        return Err(CedarError::new(CedarErrorKind::Read, why));
    }
    paths
        .into_iter()
        .map(|file| {
            let text = std::fs::read_to_string(&file).map_err(|e| unreadable(&file, e))?;
            Ok(File { name: file.display().to_string(), text })
        })
        .collect()
}

/// Parses `files` into one set. Each policy's id is its `@id("...")` annotation, or
/// `file:line` where it starts; two policies with one id, a template, or an `@ask` on a
/// `forbid` are errors.
pub(crate) fn parse(files: Vec<File>) -> Result<Policies, CedarError> {
    let mut set = PolicySet::new();
    let mut places = HashMap::new();
    let mut order = Vec::new();
    let mut notes = HashMap::new();
    let mut errors = Vec::new();
    for (index, file) in files.iter().enumerate() {
        let parsed = match PolicySet::from_str(&file.text) {
            Ok(parsed) => parsed,
            Err(e) => {
                let span = first_span(&e);
                let place = Place::at(&file.name, &file.text, span.0, span.1);
                errors.push(CedarError::new(CedarErrorKind::Parse, e.to_string()).at(Some(place)));
                continue;
            }
        };
        if let Some(template) = parsed.templates().next() {
            let why =
                format!("{}: templates are not supported (policy {})", file.name, template.id());
            errors.push(CedarError::new(CedarErrorKind::Parse, why));
            continue;
        }
        for (policy, offset) in in_file_order(&parsed, &file.text) {
            let place = Place::at(&file.name, &file.text, offset, 6);
            let id = match policy.annotation("id") {
                Some(id) => PolicyId::new(id),
                None => PolicyId::new(format!("{}:{}", short_name(&file.name), place.line)),
            };
            if policy.effect() == Effect::Forbid && policy.annotation("ask").is_some() {
                let why = format!("policy `{id}` is a forbid with @ask: @ask belongs on a permit");
                errors.push(CedarError::new(CedarErrorKind::Annotation, why).at(Some(place)));
                continue;
            }
            if places.contains_key(&id) {
                let why = format!("two policies have the id `{id}`");
                errors.push(CedarError::new(CedarErrorKind::Annotation, why).at(Some(place)));
                continue;
            }
            if let Err(e) = set.add(policy.new_id(id.clone())) {
                errors.push(
                    CedarError::new(CedarErrorKind::Annotation, e.to_string()).at(Some(place)),
                );
                continue;
            }
            let own = Notes {
                ask: policy.annotation("ask").map(str::to_owned),
                reason: policy.annotation("reason").map(str::to_owned),
            };
            notes.insert(id.clone(), own);
            places.insert(id.clone(), (index, offset));
            order.push(id);
        }
    }
    match CedarError::all(errors) {
        Some(error) => Err(error),
        None => Ok(Policies { set, files, places, order, notes }),
    }
}

/// The policies of one file's set with their byte offsets, in the order the text has them.
fn in_file_order<'a>(parsed: &'a PolicySet, text: &str) -> Vec<(&'a Policy, usize)> {
    let mut policies: Vec<&Policy> = parsed.policies().collect();
    // The parser numbers the policies of a text in order: policy0, policy1, ...
    let number = |p: &Policy| p.id().to_string().trim_start_matches("policy").parse::<usize>().ok();
    policies.sort_by_key(|p| number(p).unwrap_or(usize::MAX));
    let mut cursor = 0;
    policies
        .into_iter()
        .map(|policy| {
            let own = policy.to_cedar();
            let offset = match own.as_deref().and_then(|own| text[cursor..].find(own)) {
                Some(found) => cursor + found,
                None => cursor,
            };
            cursor = offset + own.map_or(0, |own| own.len()).min(text.len() - offset);
            (policy, offset)
        })
        .collect()
}

/// The file's name without its folders, for default ids.
fn short_name(name: &str) -> &str {
    Path::new(name).file_name().and_then(|n| n.to_str()).unwrap_or(name)
}

/// The byte range of an error's first label, or the start of the text.
pub(crate) fn first_span(diagnostic: &dyn Diagnostic) -> (usize, usize) {
    diagnostic
        .labels()
        .and_then(|mut labels| labels.next())
        .map_or((0, 1), |label| (label.offset(), label.len()))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn text(text: &str) -> Vec<File> {
        vec![File { name: "dir/p.cedar".into(), text: text.into() }]
    }

    #[test]
    fn ids_are_the_id_annotation_or_the_file_and_line() {
        let policies = parse(text(
            "permit(principal, action, resource);\n\n@id(\"named\")\nforbid(principal, action, resource);\n",
        ))
        .unwrap();
        let ids: Vec<String> = policies.order.iter().map(ToString::to_string).collect();
        assert_eq!(ids, ["p.cedar:1", "named"]);
        assert_eq!(policies.place(&PolicyId::new("named"), None).map(|p| p.line), Some(3));
    }

    #[test]
    fn duplicate_ids_ask_on_forbid_and_syntax_errors_are_located() {
        let err = parse(text(
            "@id(\"a\") permit(principal, action, resource);\n@id(\"a\") permit(principal, action, resource);\n",
        ))
        .unwrap_err();
        assert_eq!(err.kind(), CedarErrorKind::Annotation);
        assert_eq!(err.location().map(|l| l.1), Some(2));

        let err = parse(text("@ask forbid(principal, action, resource);")).unwrap_err();
        assert!(err.message().contains("@ask belongs on a permit"), "{err}");

        let err =
            parse(text("permit(principal, action, resource)\nwhen { context.x == };")).unwrap_err();
        assert_eq!(err.kind(), CedarErrorKind::Parse);
        assert_eq!(err.location().map(|l| l.1), Some(2), "{err}");
    }
}
