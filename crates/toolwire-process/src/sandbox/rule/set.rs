//! [`Policy::set`]: a rule set from a value, by the rule's kind.

use super::{Rule, RuleError, RuleKind, RuleValue};
use crate::sandbox::{Limits, Network, Policy, size};

impl Policy {
    /// Sets `rule` to `value`, as a manifest's `[sandbox]` table does: the other rules keep
    /// their values. A reader sets its rules in the order of [`Rule::ALL`]: `ports` after
    /// `network`, which it may not contradict.
    ///
    /// ```
    /// use toolwire_process::sandbox::{Network, Policy, Rule, RuleValue};
    ///
    /// let mut policy = Policy::default();
    /// policy.set(Rule::Ports, RuleValue::Ports(vec![5432]))?;
    /// assert_eq!(policy.network, Network::Ports(vec![5432]));
    /// let on = policy.set(Rule::Network, RuleValue::Text("on".to_owned()));
    /// assert!(on.is_ok());
    /// let both = policy.set(Rule::Ports, RuleValue::Ports(vec![5432]));
    /// assert_eq!(both.unwrap_err().rule(), Rule::Network);
    /// # Ok::<(), toolwire_process::sandbox::RuleError>(())
    /// ```
    ///
    /// # Errors
    ///
    /// A value of another kind than the rule takes ([`Rule::kind`]), a word or a size the
    /// rule does not know, or `ports` while the network is on; the error names the rule at
    /// fault.
    pub fn set(&mut self, rule: Rule, value: RuleValue) -> Result<(), RuleError> {
        match (rule, value) {
            (Rule::Read, RuleValue::Paths(paths)) => self.read = paths,
            (Rule::Write, RuleValue::Paths(paths)) => self.write = paths,
            (Rule::WriteWorkingFolder, RuleValue::Switch(on)) => self.write_working_folder = on,
            (Rule::TempFolder, RuleValue::Switch(on)) => self.temp_folder = on,
            (Rule::Network, RuleValue::Text(word)) => self.network = network(&word)?,
            (Rule::Ports, RuleValue::Ports(ports)) => self.network = self.ports(ports)?,
            (Rule::User, RuleValue::User(user)) => self.user = Some(user),
            (Rule::AcceptMissing, RuleValue::Layers(layers)) => self.accept_missing = layers,
            (rule, value) => match self.limits.slot(rule) {
                Some(slot) => *slot = Some(limit(rule, value)?),
                None => return Err(wrong_kind(rule, &value)),
            },
        }
        Ok(())
    }

    /// The network of `ports`, unless the network is on.
    fn ports(&self, ports: Vec<u16>) -> Result<Network, RuleError> {
        match self.network {
            Network::On => Err(RuleError::new(
                Rule::Network,
                "network = \"on\" allows every port: drop it to allow only the ports listed",
            )),
            _ => Ok(Network::Ports(ports)),
        }
    }
}

/// The network a word names: `"off"` or `"on"`, as the policy's text shows them.
fn network(word: &str) -> Result<Network, RuleError> {
    let words = [Network::Off, Network::On];
    words.iter().find(|network| network.to_string() == word).cloned().ok_or_else(|| {
        let [off, on] = words.map(|network| network.to_string());
        let message = format!("unknown network {word:?}: expected {off:?} or {on:?}");
        RuleError::new(Rule::Network, message)
    })
}

/// A limit's value: a number, or for a size a text such as `"512 MiB"`.
fn limit(rule: Rule, value: RuleValue) -> Result<u64, RuleError> {
    match (rule.kind(), value) {
        (RuleKind::Count | RuleKind::Size, RuleValue::Number(n)) => Ok(n),
        (RuleKind::Size, RuleValue::Text(text)) => size::parse(&text).ok_or_else(|| {
            let message = format!(
                "invalid size {text:?}: expected a number of bytes, or one such as \"512 MiB\" or \"4 GiB\""
            );
            RuleError::new(rule, message)
        }),
        (_, value) => Err(wrong_kind(rule, &value)),
    }
}

/// A value of another kind than `rule` takes.
fn wrong_kind(rule: Rule, value: &RuleValue) -> RuleError {
    RuleError::new(rule, format!("{rule} takes {:?} values, not {value:?}", rule.kind()))
}

impl Limits {
    /// The value of a limit's rule; `None` when it is not limited, or the rule is no limit.
    pub(crate) fn get(mut self, rule: Rule) -> Option<u64> {
        self.slot(rule).and_then(|slot| *slot)
    }

    /// The field of a limit's rule; `None` for a rule that is no limit.
    fn slot(&mut self, rule: Rule) -> Option<&mut Option<u64>> {
        match rule {
            Rule::Processes => Some(&mut self.processes),
            Rule::AddressSpace => Some(&mut self.address_space),
            Rule::CpuSeconds => Some(&mut self.cpu_seconds),
            Rule::FileSize => Some(&mut self.file_size),
            Rule::OpenFiles => Some(&mut self.open_files),
            _ => None,
        }
    }
}
