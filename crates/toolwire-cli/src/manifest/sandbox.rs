//! A command tool's `sandbox`: `"none"`, or a table over the default sandbox. Its paths are
//! relative to the manifest's folder.

use std::ops::Range;
use std::path::PathBuf;

use toml::Spanned;
use toolwire_process::sandbox::{Layer, ParseLayerError, Policy, Rule, RuleValue, Sandbox, User};

use super::ManifestError;
use super::checker::Checker;
use super::spec::sandbox::{RuleSpec, SandboxSpec, ValueSpec};

impl Checker<'_> {
    /// The sandbox `spec` gives; the default one when there is none.
    pub(super) fn sandbox(
        &self,
        spec: Option<Spanned<SandboxSpec>>,
    ) -> Result<Sandbox, ManifestError> {
        let Some(spec) = spec else { return Ok(Sandbox::default()) };
        let span = spec.span();
        match spec.into_inner() {
            SandboxSpec::Word(word) if word == "none" => Ok(Sandbox::None),
            SandboxSpec::Word(word) => Err(self.error(
                span,
                format!(
                    "unknown sandbox {word:?}: expected \"none\" or a [tool.command.sandbox] table"
                ),
            )),
            SandboxSpec::Table(rules) => self.policy(rules).map(Sandbox::Policy),
        }
    }

    /// The default policy with the table's rules set, in the order of `Rule::ALL`; an error
    /// is at the value of the rule at fault.
    fn policy(&self, mut rules: Vec<RuleSpec>) -> Result<Policy, ManifestError> {
        rules.sort_by_key(|spec| spec.rule);
        let spans: Vec<(Rule, Range<usize>)> =
            rules.iter().map(|spec| (spec.rule, spec.span.clone())).collect();
        let mut policy = Policy::default();
        for spec in rules {
            let value = self.value(spec.value)?;
            policy.set(spec.rule, value).map_err(|error| {
                let at = spans.iter().find(|(rule, _)| *rule == error.rule());
                self.error(at.map_or(spec.span, |(_, span)| span.clone()), error.to_string())
            })?;
        }
        Ok(policy)
    }

    /// A rule's value, its paths joined to the manifest's folder and its layers read.
    fn value(&self, value: ValueSpec) -> Result<RuleValue, ManifestError> {
        Ok(match value {
            ValueSpec::Paths(paths) => RuleValue::Paths(self.paths(paths)),
            ValueSpec::Switch(on) => RuleValue::Switch(on),
            ValueSpec::Text(text) => RuleValue::Text(text),
            ValueSpec::Ports(ports) => RuleValue::Ports(ports),
            ValueSpec::Number(n) => RuleValue::Number(n),
            ValueSpec::User(user) => RuleValue::User(User::new(user.uid, user.gid)),
            ValueSpec::Layers(names) => RuleValue::Layers(self.layers(names)?),
        })
    }

    /// `accept_missing`: names of layers.
    fn layers(&self, names: Vec<Spanned<String>>) -> Result<Vec<Layer>, ManifestError> {
        names
            .into_iter()
            .map(|name| {
                let span = name.span();
                name.into_inner()
                    .parse()
                    .map_err(|error: ParseLayerError| self.error(span, error.to_string()))
            })
            .collect()
    }

    fn paths(&self, paths: Vec<String>) -> Vec<PathBuf> {
        paths.into_iter().map(|path| self.folder.join(path)).collect()
    }
}
