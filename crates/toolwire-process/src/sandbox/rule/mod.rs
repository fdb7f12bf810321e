//! The rules of a sandbox policy, each named once: what a manifest calls it, what it means,
//! the kind of value it takes, how it sets a [`Policy`](super::Policy), and how the policy's
//! text shows it. A manifest's reader, [`Policy::set`](super::Policy::set), the policy's text
//! and the launcher's messages all go through this table.

mod set;
mod value;

use std::fmt;
use std::str::FromStr;

pub use value::RuleValue;

use super::size;

/// A rule of a sandbox [`Policy`](super::Policy) that a manifest may write, by the name it
/// writes it with ([`name`](Self::name)).
///
/// ```
/// use toolwire_process::sandbox::{Policy, Rule, RuleValue};
///
/// let rule: Rule = "address_space".parse()?;
/// let mut policy = Policy::default();
/// policy.set(rule, RuleValue::Text("512 MiB".to_owned()))?;
/// assert_eq!(policy.limits.address_space, Some(512 * 1024 * 1024));
/// assert_eq!(rule.to_string(), "address_space");
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
#[non_exhaustive]
pub enum Rule {
    /// `read`: the folders and files the program may read (and execute), with everything
    /// beneath them; everything (`/`) by default.
    Read,
    /// `write`: the folders and files it may write (create, change, remove), beneath them
    /// too, besides its working folder and its temporary folder; none by default.
    Write,
    /// `write_working_folder`: whether its working folder is writable too (the default).
    WriteWorkingFolder,
    /// `temp_folder`: whether it gets a private temporary folder, writable, named by
    /// `TMPDIR`, and removed after the call (the default).
    TempFolder,
    /// `network`: `"off"` (the default), no network, or `"on"`, any network.
    Network,
    /// `ports`: the TCP ports it may connect to, on any host (such as a service on
    /// loopback), with no listener and no socket of another kind, the network being otherwise
    /// off; not with `network = "on"`.
    Ports,
    /// `processes`: how many processes (and threads) may exist at once.
    Processes,
    /// `address_space`: the largest address space of one process, in bytes.
    AddressSpace,
    /// `cpu_seconds`: CPU seconds per process: `SIGXCPU` at the limit, `SIGKILL` a second
    /// later.
    CpuSeconds,
    /// `file_size`: the largest file a process may write, in bytes.
    FileSize,
    /// `open_files`: how many files a process may have open.
    OpenFiles,
    /// `user`: another user to run it as, by number (the parent must be root); the caller's
    /// by default.
    User,
    /// `accept_missing`: the [`Layer`](super::Layer)s it may run without where the kernel
    /// lacks them; none by default, so that a missing layer fails the call.
    AcceptMissing,
}

/// The kind of value a [`Rule`] takes, and so which [`RuleValue`] sets it. A reader knows
/// how to read each kind, so a new kind is a breaking change; a new rule of a known kind is
/// not.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum RuleKind {
    /// Paths: [`RuleValue::Paths`].
    Paths,
    /// `true` or `false`: [`RuleValue::Switch`].
    Switch,
    /// A word: [`RuleValue::Text`].
    Word,
    /// TCP ports: [`RuleValue::Ports`].
    Ports,
    /// A whole number: [`RuleValue::Number`].
    Count,
    /// A number of bytes ([`RuleValue::Number`]) or a text such as `"512 MiB"`
    /// ([`RuleValue::Text`]).
    Size,
    /// A user: [`RuleValue::User`].
    User,
    /// Layers: [`RuleValue::Layers`].
    Layers,
}

/// Why a value cannot set a rule: its message, and the rule at fault, which is not always the
/// rule being set (`ports` beside `network = "on"` is the network's fault).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RuleError {
    rule: Rule,
    message: String,
}

/// A name that is no [`Rule`]'s.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct UnknownRule(String);

/// What the table says of one rule.
struct Entry {
    name: &'static str,
    kind: RuleKind,
    /// A limit's words: as the launcher names it in its messages, and as the policy's text
    /// shows a value of it (`{}` stands for the value).
    limit: Option<(&'static str, &'static str)>,
}

impl Rule {
    /// Every rule, in the order a reader applies them and the policy's text shows them.
    pub const ALL: [Rule; 13] = [
        Rule::Read,
        Rule::Write,
        Rule::WriteWorkingFolder,
        Rule::TempFolder,
        Rule::Network,
        Rule::Ports,
        Rule::Processes,
        Rule::AddressSpace,
        Rule::CpuSeconds,
        Rule::FileSize,
        Rule::OpenFiles,
        Rule::User,
        Rule::AcceptMissing,
    ];

    /// The names of [`ALL`](Self::ALL), in its order: what a reader lists for a name it does
    /// not know.
    pub const NAMES: [&'static str; 13] = {
        let mut names = [""; 13];
        let mut i = 0;
        while i < names.len() {
            names[i] = Rule::ALL[i].name();
            i += 1;
        }
        names
    };

    /// The resource limits among them, in the order the policy's text shows them.
    pub(crate) const LIMITS: [Rule; 5] =
        [Rule::Processes, Rule::AddressSpace, Rule::CpuSeconds, Rule::FileSize, Rule::OpenFiles];

    /// The table.
    const fn entry(self) -> Entry {
        use RuleKind as K;
        let (name, kind, limit) = match self {
            Rule::Read => ("read", K::Paths, None),
            Rule::Write => ("write", K::Paths, None),
            Rule::WriteWorkingFolder => ("write_working_folder", K::Switch, None),
            Rule::TempFolder => ("temp_folder", K::Switch, None),
            Rule::Network => ("network", K::Word, None),
            Rule::Ports => ("ports", K::Ports, None),
            Rule::Processes => ("processes", K::Count, Some(("processes", "{} processes"))),
            Rule::AddressSpace => {
                ("address_space", K::Size, Some(("address space", "{} address space")))
            }
            Rule::CpuSeconds => ("cpu_seconds", K::Count, Some(("CPU seconds", "{} CPU seconds"))),
            Rule::FileSize => ("file_size", K::Size, Some(("file size", "files up to {}"))),
            Rule::OpenFiles => ("open_files", K::Count, Some(("open files", "{} open files"))),
            Rule::User => ("user", K::User, None),
            Rule::AcceptMissing => ("accept_missing", K::Layers, None),
        };
        Entry { name, kind, limit }
    }

    /// Its name, as a manifest writes it: `address_space`.
    pub const fn name(self) -> &'static str {
        self.entry().name
    }

    /// The kind of value it takes.
    pub const fn kind(self) -> RuleKind {
        self.entry().kind
    }

    /// A limit's words in the launcher's messages: `address space`.
    pub(crate) fn noun(self) -> &'static str {
        self.entry().limit.map_or(self.name(), |(noun, _)| noun)
    }

    /// A limit of `value`, as the policy's text shows it: `8 GiB address space`.
    pub(crate) fn show_limit(self, value: u64) -> String {
        let value = match self.kind() {
            RuleKind::Size => size::shown(value),
            _ => value.to_string(),
        };
        let pattern = self.entry().limit.map_or("{}", |(_, shown)| shown);
        pattern.replacen("{}", &value, 1)
    }
}

impl fmt::Display for Rule {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

impl FromStr for Rule {
    type Err = UnknownRule;

    fn from_str(name: &str) -> Result<Self, Self::Err> {
        Rule::ALL
            .into_iter()
            .find(|rule| rule.name() == name)
            .ok_or_else(|| UnknownRule(name.to_owned()))
    }
}

impl fmt::Display for UnknownRule {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let names: Vec<String> = Rule::NAMES.iter().map(|name| format!("`{name}`")).collect();
        write!(f, "unknown sandbox rule `{}`, expected one of {}", self.0, names.join(", "))
    }
}

impl std::error::Error for UnknownRule {}

impl RuleError {
    pub(crate) fn new(rule: Rule, message: impl Into<String>) -> Self {
        Self { rule, message: message.into() }
    }

    /// The rule at fault.
    pub fn rule(&self) -> Rule {
        self.rule
    }
}

impl fmt::Display for RuleError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.message)
    }
}

impl std::error::Error for RuleError {}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn each_rule_reads_back_from_its_name() {
        for (rule, name) in Rule::ALL.into_iter().zip(Rule::NAMES) {
            assert_eq!(rule.name(), name);
            assert_eq!(name.parse::<Rule>(), Ok(rule));
        }
        let unknown = "netwrk".parse::<Rule>().unwrap_err().to_string();
        assert!(unknown.starts_with("unknown sandbox rule `netwrk`, expected one of `read`,"));
    }

    #[test]
    fn the_limits_are_the_rules_of_numbers_and_sizes() {
        let limits: Vec<Rule> = Rule::ALL
            .into_iter()
            .filter(|rule| matches!(rule.kind(), RuleKind::Count | RuleKind::Size))
            .collect();
        assert_eq!(limits, Rule::LIMITS);
        assert_eq!(Rule::AddressSpace.show_limit(8 << 30), "8 GiB address space");
        assert_eq!(Rule::FileSize.show_limit(1 << 20), "files up to 1 MiB");
        assert_eq!(Rule::FileSize.noun(), "file size");
    }
}
