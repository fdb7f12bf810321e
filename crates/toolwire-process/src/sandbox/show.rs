//! A sandbox in words, as `toolwire check` prints it: each rule under its name, each limit
//! in the words of the [rule table](super::Rule).

use std::fmt;
use std::path::PathBuf;

use super::{Limits, Network, Policy, Rule, Sandbox};

impl fmt::Display for Sandbox {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Sandbox::None => f.write_str("none (the program runs unsandboxed)"),
            Sandbox::Policy(policy) => policy.fmt(f),
        }
    }
}

impl fmt::Display for Policy {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let mut write = paths(&self.write);
        if self.write_working_folder {
            write.insert(0, "the working folder".to_owned());
        }
        if self.temp_folder {
            write.push("a private temporary folder ($TMPDIR)".to_owned());
        }
        let write = if write.is_empty() { "nothing".to_owned() } else { write.join(", ") };
        let mut read = paths(&self.read);
        // What a program may write it may read: say so where the list would hide it.
        if self.write_working_folder
            && self.read.iter().all(|path| path != std::path::Path::new("/"))
        {
            read.insert(0, "the working folder (writable, so readable)".to_owned());
        }
        let read = if read.is_empty() { "nothing".to_owned() } else { read.join(", ") };
        write!(
            f,
            "{}: {read}; {}: {write}; {}: {}; limits: {}",
            Rule::Read,
            Rule::Write,
            Rule::Network,
            self.network,
            self.limits
        )?;
        if let Some(user) = self.user {
            write!(f, "; runs as {}:{}", user.uid, user.gid)?;
        }
        if !self.protected.is_empty() {
            write!(
                f,
                "; read-only: {} and every .git beneath a write path",
                paths(&self.protected).join(", ")
            )?;
        }
        if !self.hidden.is_empty() {
            write!(f, "; hidden: {}", paths(&self.hidden).join(", "))?;
        }
        if !self.accept_missing.is_empty() {
            let layers: Vec<&str> =
                self.accept_missing.iter().map(|layer| layer.as_str()).collect();
            write!(f, "; runs without {} where the kernel lacks them", layers.join(", "))?;
        }
        f.write_str("; no capabilities, no_new_privs")
    }
}

fn paths(paths: &[PathBuf]) -> Vec<String> {
    paths.iter().map(|path| path.display().to_string()).collect()
}

impl fmt::Display for Network {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Network::Off => f.write_str("off"),
            Network::On => f.write_str("on"),
            Network::Ports(ports) => {
                let ports: Vec<String> = ports.iter().map(u16::to_string).collect();
                write!(f, "TCP ports {}", ports.join(", "))
            }
        }
    }
}

impl fmt::Display for Limits {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let shown: Vec<String> = Rule::LIMITS
            .into_iter()
            .filter_map(|rule| self.get(rule).map(|value| rule.show_limit(value)))
            .collect();
        if shown.is_empty() { f.write_str("none") } else { f.write_str(&shown.join(", ")) }
    }
}

#[cfg(test)]
mod tests {
    use std::path::PathBuf;

    use crate::sandbox::{Layer, Network, Policy, Rule, RuleValue, User};

    /// The text of a policy with every rule set, as it read before the rules had a table.
    #[test]
    fn a_policy_reads_as_it_always_has() {
        let mut policy = Policy::default();
        let set = [
            (Rule::Write, RuleValue::Paths(vec![PathBuf::from("/srv/out")])),
            (Rule::Ports, RuleValue::Ports(vec![5432, 8080])),
            (Rule::AddressSpace, RuleValue::Text("512 MiB".to_owned())),
            (Rule::CpuSeconds, RuleValue::Number(60)),
            (Rule::User, RuleValue::User(User::NOBODY)),
            (Rule::AcceptMissing, RuleValue::Layers(vec![Layer::Namespaces])),
        ];
        for (rule, value) in set {
            policy.set(rule, value).unwrap();
        }
        policy.protected.push(PathBuf::from("/etc/toolwire.toml"));
        policy.hidden.push(PathBuf::from("/var/lib/journal.db"));
        assert_eq!(policy.network, Network::Ports(vec![5432, 8080]));
        assert_eq!(
            policy.to_string(),
            "read: /; write: the working folder, /srv/out, a private temporary folder ($TMPDIR); \
             network: TCP ports 5432, 8080; limits: 256 processes, 512 MiB address space, \
             60 CPU seconds, files up to 4 GiB, 1024 open files; runs as 65534:65534; \
             read-only: /etc/toolwire.toml and every .git beneath a write path; \
             hidden: /var/lib/journal.db; runs without namespaces where the kernel lacks them; \
             no capabilities, no_new_privs"
        );
    }
}
