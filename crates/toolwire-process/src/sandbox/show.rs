//! A sandbox in words, as `toolwire check` prints it.

use std::fmt;
use std::path::PathBuf;

use super::{Limits, Network, Policy, Sandbox};

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
            "read: {read}; write: {write}; network: {}; limits: {}",
            self.network, self.limits
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
        let shown = [
            self.processes.map(|n| format!("{n} processes")),
            self.address_space.map(|n| format!("{} address space", bytes(n))),
            self.cpu_seconds.map(|n| format!("{n} CPU seconds")),
            self.file_size.map(|n| format!("files up to {}", bytes(n))),
            self.open_files.map(|n| format!("{n} open files")),
        ];
        let shown: Vec<String> = shown.into_iter().flatten().collect();
        if shown.is_empty() { f.write_str("none") } else { f.write_str(&shown.join(", ")) }
    }
}

/// `512 MiB`, `8 GiB`, or bytes when not a whole number of either.
fn bytes(n: u64) -> String {
    const MIB: u64 = 1024 * 1024;
    match n {
        n if n >= 1024 * MIB && n % (1024 * MIB) == 0 => format!("{} GiB", n / (1024 * MIB)),
        n if n >= MIB && n % MIB == 0 => format!("{} MiB", n / MIB),
        n => format!("{n} bytes"),
    }
}
