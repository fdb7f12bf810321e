//! A command tool's `sandbox`: `"none"`, or a table over the default sandbox. Its paths are
//! relative to the manifest's folder.

use std::path::PathBuf;

use toml::Spanned;
use toolwire_process::sandbox::{Layer, Network, ParseLayerError, Policy, Sandbox, User};

use super::ManifestError;
use super::checker::Checker;
use super::spec::sandbox::{SandboxSpec, SandboxTable, Size};

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
            SandboxSpec::Table(table) => self.policy(*table).map(Sandbox::Policy),
        }
    }

    fn policy(&self, table: SandboxTable) -> Result<Policy, ManifestError> {
        let mut policy = Policy::default();
        if let Some(read) = table.read {
            policy.read = self.paths(read);
        }
        policy.write = self.paths(table.write);
        policy.write_working_folder = table.write_working_folder.unwrap_or(true);
        policy.temp_folder = table.temp_folder.unwrap_or(true);
        policy.network = self.network(table.network, table.ports)?;
        let limits = &mut policy.limits;
        limits.processes = table.processes.or(limits.processes);
        limits.address_space = self.size(table.address_space)?.or(limits.address_space);
        limits.cpu_seconds = table.cpu_seconds.or(limits.cpu_seconds);
        limits.file_size = self.size(table.file_size)?.or(limits.file_size);
        limits.open_files = table.open_files.or(limits.open_files);
        policy.user = table.user.map(|user| User { uid: user.uid, gid: user.gid });
        policy.accept_missing = self.layers(table.accept_missing)?;
        Ok(policy)
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

    fn network(
        &self,
        word: Option<Spanned<String>>,
        ports: Option<Vec<u16>>,
    ) -> Result<Network, ManifestError> {
        let on = match &word {
            None => false,
            Some(word) => match word.get_ref().as_str() {
                "off" => false,
                "on" => true,
                other => {
                    let message = format!("unknown network {other:?}: expected \"off\" or \"on\"");
                    return Err(self.error(word.span(), message));
                }
            },
        };
        match (on, ports) {
            (true, Some(_)) => Err(self.error(
                word.map_or(0..0, |word| word.span()),
                "network = \"on\" allows every port: drop it to allow only the ports listed",
            )),
            (true, None) => Ok(Network::On),
            (false, Some(ports)) => Ok(Network::Ports(ports)),
            (false, None) => Ok(Network::Off),
        }
    }

    fn size(&self, size: Option<Spanned<Size>>) -> Result<Option<u64>, ManifestError> {
        let Some(size) = size else { return Ok(None) };
        let span = size.span();
        match size.into_inner() {
            Size::Bytes(bytes) => Ok(Some(bytes)),
            Size::Text(text) => parse_size(&text).map(Some).ok_or_else(|| {
                self.error(span, format!("invalid size {text:?}: expected a number of bytes, or one such as \"512 MiB\" or \"4 GiB\""))
            }),
        }
    }
}

/// `"512 MiB"`, `"4GiB"`, `"100 B"`.
fn parse_size(text: &str) -> Option<u64> {
    let text = text.trim();
    let digits = text.find(|c: char| !c.is_ascii_digit()).unwrap_or(text.len());
    let number: u64 = text[..digits].parse().ok()?;
    let unit: u64 = match text[digits..].trim() {
        "" | "B" => 1,
        "KiB" => 1 << 10,
        "MiB" => 1 << 20,
        "GiB" => 1 << 30,
        _ => return None,
    };
    number.checked_mul(unit)
}
