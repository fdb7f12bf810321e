//! [`Principal`]: who makes a call, as the host that took the call knows it.

use std::fmt;
use std::sync::Arc;

use serde::{Deserialize, Serialize};

/// Who makes a call: set by the host that took it, never by the model or the peer.
///
/// A policy reads it from [`ToolContext::principal`](crate::ToolContext::principal), and the
/// call's [`Receipt`](crate::Receipt) records it. Each bridge sets its own:
/// the `toolwire` command's local user is a [`User`](PrincipalKind::User); an MCP client that
/// authenticated with a named token is a [`Client`](PrincipalKind::Client); an agent run is an
/// [`Agent`](PrincipalKind::Agent). It serializes as `{"kind": "client", "name": "ci-bot"}`.
///
/// ```
/// use toolwire::{Principal, PrincipalKind};
///
/// let who = Principal::client("ci-bot");
/// assert_eq!(who.kind(), PrincipalKind::Client);
/// assert_eq!(who.name(), "ci-bot");
/// assert_eq!(who.to_string(), "client ci-bot");
/// ```
#[derive(Clone, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(from = "Named", into = "Named")]
pub struct Principal(Arc<Named>);

/// A principal's parts, shared by its clones: one pointer in a receipt.
#[derive(Debug, Clone, PartialEq, Eq, Hash, Serialize, Deserialize)]
struct Named {
    kind: PrincipalKind,
    name: Box<str>,
}

impl From<Named> for Principal {
    fn from(named: Named) -> Self {
        Principal(Arc::new(named))
    }
}

impl From<Principal> for Named {
    fn from(principal: Principal) -> Self {
        Arc::unwrap_or_clone(principal.0)
    }
}

impl fmt::Debug for Principal {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Principal").field("kind", &self.0.kind).field("name", &self.0.name).finish()
    }
}

/// What kind of caller a [`Principal`] is.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
#[non_exhaustive]
pub enum PrincipalKind {
    /// A person on this machine: the local user of the `toolwire` command.
    User,
    /// A network client that proved a name, such as an MCP client with a named token.
    Client,
    /// An agent run, named by its run id.
    Agent,
}

impl PrincipalKind {
    /// Its name: `user`, `client` or `agent`.
    pub fn as_str(self) -> &'static str {
        match self {
            PrincipalKind::User => "user",
            PrincipalKind::Client => "client",
            PrincipalKind::Agent => "agent",
        }
    }
}

impl Principal {
    /// A principal of `kind` named `name`.
    pub fn new(kind: PrincipalKind, name: impl Into<Box<str>>) -> Self {
        Principal(Arc::new(Named { kind, name: name.into() }))
    }

    /// A local user named `name`.
    pub fn user(name: impl Into<Box<str>>) -> Self {
        Self::new(PrincipalKind::User, name)
    }

    /// A network client named `name`.
    pub fn client(name: impl Into<Box<str>>) -> Self {
        Self::new(PrincipalKind::Client, name)
    }

    /// An agent run named `name`.
    pub fn agent(name: impl Into<Box<str>>) -> Self {
        Self::new(PrincipalKind::Agent, name)
    }

    /// What kind of caller it is.
    pub fn kind(&self) -> PrincipalKind {
        self.0.kind
    }

    /// Its name.
    pub fn name(&self) -> &str {
        &self.0.name
    }
}

impl fmt::Display for Principal {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{} {}", self.0.kind.as_str(), self.0.name)
    }
}
