//! A command tool's `sandbox`, as written: the word `"none"`, or a table of rules, each read
//! by the kind of value its [`Rule`] takes.
//!
//! Read by hand rather than as an untagged enum, which buffers its input: the spans of the
//! table's values would be lost, and any error in the table would read "data did not match
//! any variant", naming no key.

use std::fmt;
use std::ops::Range;

use serde::Deserialize;
use serde::de::{self, MapAccess, Visitor};
use toml::Spanned;
use toolwire_process::sandbox::{Rule, RuleKind};

/// `sandbox`: the word `"none"`, or a `[tool.command.sandbox]` table.
#[derive(Debug)]
pub(crate) enum SandboxSpec {
    /// `"none"` (any other word is an error).
    Word(String),
    /// The rules, in the order written; every rule left out keeps the default sandbox's.
    Table(Vec<RuleSpec>),
}

/// One rule of a sandbox table: which, its value, and where the value is written.
#[derive(Debug)]
pub(crate) struct RuleSpec {
    /// The rule its key names.
    pub(crate) rule: Rule,
    /// Its value, read by the rule's kind.
    pub(crate) value: ValueSpec,
    /// Where the value is written.
    pub(crate) span: Range<usize>,
}

/// A rule's value as TOML has it.
#[derive(Debug)]
pub(crate) enum ValueSpec {
    /// Paths, relative to the manifest's folder.
    Paths(Vec<String>),
    /// `true` or `false`.
    Switch(bool),
    /// A word, or a size written as text (`"512 MiB"`).
    Text(String),
    /// TCP ports.
    Ports(Vec<u16>),
    /// A whole number, or a size in bytes.
    Number(u64),
    /// `{ uid = .., gid = .. }`.
    User(UserSpec),
    /// Layer names, each with where it is written.
    Layers(Vec<Spanned<String>>),
}

/// `user = { uid = .., gid = .. }`.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub(crate) struct UserSpec {
    /// The user id.
    pub(crate) uid: u32,
    /// The group id.
    pub(crate) gid: u32,
}

/// A size: bytes, or a text such as `"512 MiB"`.
#[derive(Deserialize)]
#[serde(untagged)]
enum Size {
    Bytes(u64),
    Text(String),
}

impl SandboxSpec {
    /// Whether the table sets `rule`.
    pub(crate) fn sets(&self, rule: Rule) -> bool {
        matches!(self, SandboxSpec::Table(rules) if rules.iter().any(|spec| spec.rule == rule))
    }
}

impl<'de> Deserialize<'de> for SandboxSpec {
    fn deserialize<D: serde::Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        deserializer.deserialize_any(SandboxVisitor)
    }
}

struct SandboxVisitor;

impl<'de> Visitor<'de> for SandboxVisitor {
    type Value = SandboxSpec;

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("\"none\", or a table of sandbox settings such as { write = [\"out\"] }")
    }

    fn visit_str<E: de::Error>(self, word: &str) -> Result<Self::Value, E> {
        Ok(SandboxSpec::Word(word.to_owned()))
    }

    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Self::Value, A::Error> {
        let mut rules = Vec::new();
        while let Some(RuleKey(rule)) = map.next_key()? {
            let (value, span) = match rule.kind() {
                RuleKind::Paths => read(&mut map, ValueSpec::Paths)?,
                RuleKind::Switch => read(&mut map, ValueSpec::Switch)?,
                RuleKind::Word => read(&mut map, ValueSpec::Text)?,
                RuleKind::Ports => read(&mut map, ValueSpec::Ports)?,
                RuleKind::Count => read(&mut map, ValueSpec::Number)?,
                RuleKind::Size => read(&mut map, |size| match size {
                    Size::Bytes(bytes) => ValueSpec::Number(bytes),
                    Size::Text(text) => ValueSpec::Text(text),
                })?,
                RuleKind::User => read(&mut map, ValueSpec::User)?,
                RuleKind::Layers => read(&mut map, ValueSpec::Layers)?,
            };
            rules.push(RuleSpec { rule, value, span });
        }
        Ok(SandboxSpec::Table(rules))
    }
}

/// The next value of `map` as a `T`, made a [`ValueSpec`] by `make`, and its span.
fn read<'de, A, T>(
    map: &mut A,
    make: impl FnOnce(T) -> ValueSpec,
) -> Result<(ValueSpec, Range<usize>), A::Error>
where
    A: MapAccess<'de>,
    T: Deserialize<'de>,
{
    let value: Spanned<T> = map.next_value()?;
    let span = value.span();
    Ok((make(value.into_inner()), span))
}

/// A key of a sandbox table: a rule's name. Any other is an unknown field, listing the
/// rules.
struct RuleKey(Rule);

impl<'de> Deserialize<'de> for RuleKey {
    fn deserialize<D: serde::Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        deserializer.deserialize_identifier(RuleKeyVisitor)
    }
}

struct RuleKeyVisitor;

impl Visitor<'_> for RuleKeyVisitor {
    type Value = RuleKey;

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("a sandbox rule")
    }

    fn visit_str<E: de::Error>(self, name: &str) -> Result<Self::Value, E> {
        name.parse().map(RuleKey).map_err(|_| E::unknown_field(name, &Rule::NAMES))
    }
}
