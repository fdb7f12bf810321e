//! The pinned and the current definitions of one server's tools: what the host trusted, and
//! what the server lists now.

use std::collections::{BTreeMap, HashMap};
use std::sync::{PoisonError, RwLock, RwLockReadGuard, RwLockWriteGuard};

use super::pin::{Change, Definition, Drift};

/// One server's tools, pinned and current.
#[derive(Debug, Default)]
pub(crate) struct Catalog {
    inner: RwLock<State>,
}

#[derive(Debug, Default)]
struct State {
    /// The definitions the host trusts, by remote name.
    pinned: HashMap<String, Definition>,
    /// The definitions of the latest listing, by remote name, in listing order.
    current: BTreeMap<String, (usize, Definition)>,
}

impl Catalog {
    /// Records a new listing of the server's tools.
    pub(crate) fn update(&self, tools: Vec<rmcp::model::Tool>) {
        let current = tools
            .into_iter()
            .enumerate()
            .map(|(i, tool)| (tool.name.to_string(), (i, Definition::new(tool))))
            .collect();
        self.write().current = current;
    }

    /// Pins every listed tool that is not pinned yet, and returns the pinned definitions of
    /// the listed tools, in listing order (a changed tool keeps its old, trusted definition).
    pub(crate) fn pin_listed(&self) -> Vec<Definition> {
        let mut state = self.write();
        let State { pinned, current } = &mut *state;
        let mut listed: Vec<(usize, Definition)> = current
            .iter()
            .map(|(name, (i, def))| {
                let pin = pinned.entry(name.clone()).or_insert_with(|| def.clone());
                (*i, pin.clone())
            })
            .collect();
        listed.sort_by_key(|(i, _)| *i);
        listed.into_iter().map(|(_, def)| def).collect()
    }

    /// Checks that `tool` is listed as it was pinned.
    pub(crate) fn check(&self, tool: &str) -> Result<(), Drift> {
        let state = self.read();
        match state.pinned.get(tool) {
            Some(pin) => {
                drift(tool, pin, state.current.get(tool).map(|(_, d)| d)).map_or(Ok(()), Err)
            }
            None => Err(Drift { tool: tool.to_owned(), change: Change::Removed }),
        }
    }

    /// Every pinned tool whose current definition differs, by name.
    pub(crate) fn changes(&self) -> Vec<Drift> {
        let state = self.read();
        let mut drifts: Vec<Drift> = state
            .pinned
            .iter()
            .filter_map(|(name, pin)| drift(name, pin, state.current.get(name).map(|(_, d)| d)))
            .collect();
        drifts.sort_by(|a, b| a.tool.cmp(&b.tool));
        drifts
    }

    /// Trusts the current definition of `tool` (or its removal); whether it had drifted.
    pub(crate) fn accept(&self, tool: &str) -> bool {
        let mut state = self.write();
        let State { pinned, current } = &mut *state;
        let Some(pin) = pinned.get(tool) else { return false };
        match current.get(tool) {
            Some((_, now)) if now == pin => false,
            Some((_, now)) => {
                pinned.insert(tool.to_owned(), now.clone());
                true
            }
            None => pinned.remove(tool).is_some(),
        }
    }

    /// Whether a call to the pinned `tool` needs no SEP-2243 header beyond `Mcp-Method` and
    /// `Mcp-Name`.
    #[cfg(feature = "client-http")]
    pub(crate) fn plain(&self, tool: &str) -> bool {
        self.read().pinned.get(tool).is_some_and(|pin| pin.plain)
    }

    /// The digest the host trusts for `tool`, if it is pinned.
    pub(crate) fn digest(&self, tool: &str) -> Option<String> {
        self.read().pinned.get(tool).map(|pin| pin.digest().to_owned())
    }

    fn read(&self) -> RwLockReadGuard<'_, State> {
        self.inner.read().unwrap_or_else(PoisonError::into_inner)
    }

    fn write(&self) -> RwLockWriteGuard<'_, State> {
        self.inner.write().unwrap_or_else(PoisonError::into_inner)
    }
}

/// How `now` differs from `pin`, if it does.
fn drift(name: &str, pin: &Definition, now: Option<&Definition>) -> Option<Drift> {
    let change = match now {
        None => Change::Removed,
        Some(now) if now.digest() == pin.digest() => return None,
        Some(now) => Change::Modified(pin.changes_from(now)),
    };
    Some(Drift { tool: name.to_owned(), change })
}
