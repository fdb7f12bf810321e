//! `[mcp_servers.NAME]` tables, and an `mcp_config` file in the editors' shape: the MCP
//! servers whose tools a manifest imports, checked into [`ServerDef`]s.

use std::collections::{BTreeMap, BTreeSet};
use std::time::Duration;

use toml::Spanned;
use toolwire::Annotations;
use toolwire_mcp::client::{HttpConfig, McpConfig, OAuthSettings, ServerSpec, StdioConfig};
use toolwire_mcp::{Revision, UnknownRevision};
use toolwire_process::sandbox::{Policy, Rule, Sandbox};

use super::ManifestError;
use super::checker::Checker;
use super::spec::mcp::{ApprovalSpec, McpServerSpec};

/// One checked MCP server.
#[derive(Debug, Clone)]
pub(crate) struct ServerDef {
    pub(crate) name: String,
    pub(crate) spec: ServerSpec,
    pub(crate) prefix: String,
    pub(crate) allow: Vec<String>,
    pub(crate) deny: Vec<String>,
    pub(crate) all_need_approval: bool,
    pub(crate) needs_approval: BTreeSet<String>,
    pub(crate) accept_new: bool,
    pub(crate) timeout: Option<Duration>,
    /// The largest result a call may return, in bytes.
    pub(crate) output_limit: u64,
    /// At most this many calls of its tools at once.
    pub(crate) concurrency: Option<usize>,
    /// The MCP revision offered, when not the default.
    pub(crate) protocol: Option<String>,
    /// The hints every tool gets: the manifest's, never the server's.
    pub(crate) hints: Annotations,
    /// The sandbox of a server started over stdio.
    pub(crate) sandbox: Sandbox,
    /// What becomes of the server's own questions.
    pub(crate) questions: Questions,
    /// Every tool of the server deferred (`true`) or loaded always (`false`); as the
    /// manifest's threshold says when absent.
    pub(crate) defer_loading: Option<bool>,
}

/// What becomes of a server's own questions: the elicitations it asks during a call.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Questions {
    /// Asked of whoever answers toolwire's own requests: the terminal of `toolwire call`
    /// and `toolwire run`, `toolwire approvals answer` through the journal, or the client
    /// of `toolwire serve`. A 2026-07-28 server's question is a pending result of the call.
    /// A server on an older revision needs its answer within the call: it is not offered
    /// elicitation, and a question it sends anyway is declined.
    Ask,
    /// Declined at once, with a note on stderr.
    Decline,
}

impl ServerDef {
    /// Whether the remote tool `tool` is imported, by the allow and deny lists.
    pub(crate) fn keeps(&self, tool: &str) -> bool {
        let allowed = self.allow.is_empty() || self.allow.iter().any(|glob| matches(glob, tool));
        allowed && !self.deny.iter().any(|glob| matches(glob, tool))
    }
}

impl Checker<'_> {
    /// Checks the `[mcp_servers]` tables and the servers of `mcp_config`, whose names must
    /// not repeat.
    pub(super) fn servers(
        &self,
        tables: BTreeMap<String, Spanned<McpServerSpec>>,
        config: Option<Spanned<String>>,
    ) -> Result<Vec<ServerDef>, ManifestError> {
        let mut servers = Vec::new();
        for (name, spec) in tables {
            servers.push(self.server(name, spec)?);
        }
        let Some(config) = config else { return Ok(servers) };
        let path = self.folder.join(config.get_ref());
        let file = McpConfig::from_path(&path).map_err(|error| {
            self.error(config.span(), format!("cannot read {}: {error}", path.display()))
        })?;
        for (name, spec) in file.servers() {
            if servers.iter().any(|server| server.name == name) {
                let message = format!("mcp server {name:?} is both in the manifest and here");
                return Err(self.error(config.span(), message));
            }
            let mut spec = spec.clone();
            // The editors' format has no `cwd`: a server runs in the folder of its mcp.json,
            // wherever toolwire was started.
            if let ServerSpec::Stdio(stdio) = &mut spec
                && stdio.cwd.is_none()
            {
                stdio.cwd = path.parent().map(std::path::Path::to_path_buf);
            }
            servers.push(ServerDef::plain(name, spec));
        }
        Ok(servers)
    }

    /// A server's `oauth` table as the client's settings; its secret read from its variable.
    fn oauth(
        &self,
        name: &str,
        spec: &Spanned<super::spec::mcp::OAuthSpec>,
    ) -> Result<OAuthSettings, ManifestError> {
        let table = spec.get_ref();
        let mut settings = OAuthSettings::new().scopes(table.scopes.iter().cloned());
        settings.client_id.clone_from(&table.client_id);
        settings.redirect_port = table.redirect_port;
        settings.trusted_hosts.clone_from(&table.trusted_hosts);
        if let Some(url) = &table.client_metadata_url {
            if !url.starts_with("https://") {
                let message = format!("mcp server {name:?}: client_metadata_url must be https");
                return Err(self.error(spec.span(), message));
            }
            settings.client_metadata_url = Some(url.clone());
        }
        if let Some(var) = &table.client_secret_env {
            let secret = std::env::var(var).map_err(|_| {
                let message = format!(
                    "mcp server {name:?}: client_secret_env reads ${var}, which is not set"
                );
                self.error(spec.span(), message)
            })?;
            settings.client_secret = Some(secret);
        }
        Ok(settings)
    }

    fn server(
        &self,
        name: String,
        spec: Spanned<McpServerSpec>,
    ) -> Result<ServerDef, ManifestError> {
        let whole = spec.span();
        let spec = spec.into_inner();
        let cpu_limited =
            spec.sandbox.as_ref().is_some_and(|sandbox| sandbox.get_ref().sets(Rule::CpuSeconds));
        if name.is_empty() || !name.chars().all(|c| c.is_ascii_alphanumeric() || "_-".contains(c)) {
            let message = format!("mcp server name {name:?}: use letters, digits, `_` and `-`");
            return Err(self.error(whole, message));
        }
        let remote = match (&spec.command, &spec.url) {
            (Some(command), None) => {
                if let Some(oauth) = &spec.oauth {
                    let message = format!(
                        "mcp server {name:?}: `oauth` applies to a server over HTTP (`url`), not to a `command`"
                    );
                    return Err(self.error(oauth.span(), message));
                }
                let mut stdio = StdioConfig::new(command.get_ref()).clear_env();
                stdio.args.clone_from(&spec.args);
                for key in &spec.env {
                    if let Some(value) = std::env::var_os(key).and_then(|v| v.into_string().ok()) {
                        stdio = stdio.env(key, value);
                    }
                }
                stdio.cwd = spec.cwd.as_ref().map(|cwd| self.folder.join(cwd));
                ServerSpec::Stdio(stdio)
            }
            (None, Some(url)) => {
                let mut http = HttpConfig::new(url.get_ref());
                for (header, var) in &spec.headers {
                    let value = std::env::var(var).map_err(|_| {
                        let message = format!(
                            "mcp server {name:?}: header {header:?} reads ${var}, which is not set"
                        );
                        self.error(url.span(), message)
                    })?;
                    http = http.header(header, value);
                }
                if let Some(oauth) = &spec.oauth {
                    http = http.oauth(self.oauth(&name, oauth)?);
                }
                ServerSpec::Http(http)
            }
            (Some(command), Some(_)) => {
                let message =
                    format!("mcp server {name:?} has both a `command` and a `url`: give one");
                return Err(self.error(command.span(), message));
            }
            (None, None) => {
                let message =
                    format!("mcp server {name:?} needs a `command` (stdio) or a `url` (HTTP)");
                return Err(self.error(whole, message));
            }
        };
        let mut server = ServerDef::plain(&name, remote);
        if let Some(prefix) = spec.prefix {
            let ok =
                prefix.get_ref().chars().all(|c| c.is_ascii_alphanumeric() || "_-.".contains(c));
            if !ok {
                let message = "a prefix is letters, digits, `_`, `-` and `.`, as tool names are";
                return Err(self.error(prefix.span(), message));
            }
            server.prefix = prefix.into_inner();
        }
        server.allow = spec.allow.into_iter().map(Spanned::into_inner).collect();
        server.deny = spec.deny.into_iter().map(Spanned::into_inner).collect();
        match spec.needs_approval.map(Spanned::into_inner) {
            Some(ApprovalSpec::All(all)) => server.all_need_approval = all,
            Some(ApprovalSpec::Tools(tools)) => server.needs_approval = tools.into_iter().collect(),
            None => {}
        }
        server.accept_new = spec.accept_new;
        if spec.timeout.is_some() {
            server.timeout = Some(self.duration(spec.timeout)?);
        }
        server.output_limit = self.limit(spec.output_limit)?;
        if let Some(limit) = spec.concurrency {
            if *limit.get_ref() == 0 {
                return Err(self.error(limit.span(), "concurrency must be at least 1"));
            }
            server.concurrency = usize::try_from(limit.into_inner()).ok();
        }
        if let Some(protocol) = spec.protocol {
            let span = protocol.span();
            let revision: Revision = protocol
                .get_ref()
                .parse()
                .map_err(|error: UnknownRevision| self.error(span, error.to_string()))?;
            server.protocol = Some(revision.as_str().to_owned());
        }
        if spec.command.is_some() {
            server.sandbox = self.sandbox(spec.sandbox)?;
            if let Sandbox::Policy(policy) = &mut server.sandbox
                && !cpu_limited
            {
                policy.limits.cpu_seconds = None;
            }
        } else if let Some(sandbox) = spec.sandbox {
            let message =
                "a sandbox applies to a server toolwire starts (`command`), not to a `url`";
            return Err(self.error(sandbox.span(), message));
        }
        if let Some(questions) = spec.questions {
            server.questions = match questions.get_ref().as_str() {
                "ask" => Questions::Ask,
                "decline" => Questions::Decline,
                other => {
                    let message = format!("questions is \"ask\" or \"decline\", not {other:?}");
                    return Err(self.error(questions.span(), message));
                }
            };
        }
        server.defer_loading = spec.defer_loading;
        let hints = &mut server.hints;
        hints.read_only_hint = spec.read_only;
        hints.destructive_hint = spec.destructive;
        hints.idempotent_hint = spec.idempotent;
        hints.open_world_hint = spec.open_world;
        Ok(server)
    }
}

impl ServerDef {
    /// `spec` under `name`, with the defaults: prefix `name__`, every tool, no approvals,
    /// none of the server's hints.
    pub(crate) fn plain(name: &str, spec: ServerSpec) -> Self {
        Self {
            name: name.to_owned(),
            spec,
            prefix: format!("{name}__"),
            allow: Vec::new(),
            deny: Vec::new(),
            all_need_approval: false,
            needs_approval: BTreeSet::new(),
            accept_new: false,
            timeout: None,
            output_limit: super::DEFAULT_OUTPUT_LIMIT,
            concurrency: None,
            protocol: None,
            hints: Annotations::default(),
            sandbox: server_sandbox(),
            questions: Questions::Ask,
            defer_loading: None,
        }
    }
}

/// The default sandbox of a server: a command tool's, with no CPU-time limit.
fn server_sandbox() -> Sandbox {
    let mut policy = Policy::default();
    policy.limits.cpu_seconds = None;
    Sandbox::Policy(policy)
}

/// Whether `text` matches `glob`, where `*` stands for any run of characters and `?` for
/// one.
pub(crate) fn matches(glob: &str, text: &str) -> bool {
    let (glob, text): (Vec<char>, Vec<char>) = (glob.chars().collect(), text.chars().collect());
    // The classic two-pointer match, with the last `*` to fall back to.
    let (mut g, mut t, mut star, mut mark) = (0, 0, None, 0);
    while t < text.len() {
        match glob.get(g) {
            Some('*') => {
                star = Some(g);
                mark = t;
                g += 1;
            }
            Some(&c) if c == '?' || c == text[t] => {
                g += 1;
                t += 1;
            }
            _ => match star {
                Some(s) => {
                    g = s + 1;
                    mark += 1;
                    t = mark;
                }
                None => return false,
            },
        }
    }
    glob[g..].iter().all(|&c| c == '*')
}

#[cfg(test)]
mod tests {
    use super::matches;

    #[test]
    fn globs_match_as_shells_do() {
        assert!(matches("*", ""));
        assert!(matches("get_*", "get_weather"));
        assert!(!matches("get_*", "set_weather"));
        assert!(matches("*_file", "delete_file"));
        assert!(matches("a?c", "abc"));
        assert!(!matches("a?c", "ac"));
        assert!(matches("*a*b*", "xxaxxbxx"));
        assert!(!matches("*a*b", "xxbxxa"));
        assert!(matches("exact", "exact"));
        assert!(!matches("exact", "exactly"));
    }
}
