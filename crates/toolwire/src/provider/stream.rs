//! What the streaming accumulators share: calls assembled piece by piece, keyed by the
//! provider's index, finished in key order.

use std::collections::BTreeMap;

use serde_json::Value;

use super::parse::{call_with_arguments, malformed};
use crate::record::ToolCall;

/// One call as far as it has streamed.
#[derive(Debug, Default, Clone)]
pub(super) struct Partial {
    pub(super) id: Option<String>,
    pub(super) name: Option<String>,
    /// The argument fragments, joined.
    pub(super) arguments: String,
    /// Whole arguments given when the call started, used when no fragments follow.
    pub(super) input: Option<Value>,
    /// Whether the event that opens the call arrived.
    pub(super) started: bool,
    /// Whether its arguments are complete: the provider said so, or a later call began.
    pub(super) ready: bool,
    /// Whether [`Partials::take_ready`] handed it out already.
    pub(super) taken: bool,
}

impl Partial {
    /// Takes `id` unless it is empty or an id is already set: a later empty or repeated id
    /// never replaces the real one.
    pub(super) fn keep_id(&mut self, id: Option<&str>) {
        if let Some(id) = id.filter(|id| !id.is_empty()) {
            self.id.get_or_insert_with(|| id.to_owned());
        }
    }

    /// Takes `id` in place of the one set, unless it is empty: for the id a provider names
    /// the call by once it is done.
    pub(super) fn replace_id(&mut self, id: Option<&str>) {
        if let Some(id) = id.filter(|id| !id.is_empty()) {
            self.id = Some(id.to_owned());
        }
    }

    /// Takes `name` unless it is empty or a name is already set.
    pub(super) fn keep_name(&mut self, name: Option<&str>) {
        if let Some(name) = name.filter(|name| !name.is_empty()) {
            self.name.get_or_insert_with(|| name.to_owned());
        }
    }

    /// The finished call. A call that never received its name, or its id where ids are
    /// required, cannot run: it becomes a call that fails saying so, and the calls beside it
    /// are unaffected.
    pub(super) fn finish(self, ids_optional: bool) -> ToolCall {
        let id = self.id.unwrap_or_default();
        let Some(name) = self.name.filter(|name| !name.is_empty()) else {
            return malformed(&id, "", "the call was cut off: no tool name was streamed for it");
        };
        if id.is_empty() && !ids_optional {
            return malformed(&id, &name, "the call was cut off: no call id was streamed for it");
        }
        if self.arguments.is_empty() && self.input.is_some() {
            return call_with_arguments(&id, &name, self.input.as_ref());
        }
        ToolCall::from_json_text(id, name, &self.arguments)
    }
}

/// Calls under assembly, by a key that orders them (the provider's index).
#[derive(Debug, Clone)]
pub(super) struct Partials<K> {
    by_key: BTreeMap<K, Partial>,
}

impl<K> Default for Partials<K> {
    fn default() -> Self {
        Self { by_key: BTreeMap::new() }
    }
}

impl<K: Ord> Partials<K> {
    /// The call at `key`, begun empty if there is none yet.
    pub(super) fn at(&mut self, key: K) -> &mut Partial {
        self.by_key.entry(key).or_default()
    }

    /// The call at `key`, if one has begun.
    pub(super) fn get(&self, key: &K) -> Option<&Partial> {
        self.by_key.get(key)
    }

    /// The calls under assembly, in key order.
    pub(super) fn iter(&self) -> impl Iterator<Item = (&K, &Partial)> {
        self.by_key.iter()
    }

    /// The calls under assembly, mutably, in key order.
    pub(super) fn iter_mut(&mut self) -> impl Iterator<Item = (&K, &mut Partial)> {
        self.by_key.iter_mut()
    }

    /// Whether a call has begun at `key`.
    pub(super) fn contains(&self, key: &K) -> bool {
        self.by_key.contains_key(key)
    }

    /// The calls that are ready and were not handed out yet, with their keys, in key order;
    /// each is marked as handed out.
    pub(super) fn take_ready(&mut self, ids_optional: bool) -> Vec<(K, ToolCall)>
    where
        K: Clone,
    {
        let mut ready = Vec::new();
        for (key, partial) in self.by_key.iter_mut().filter(|(_, p)| p.ready && !p.taken) {
            partial.taken = true;
            ready.push((key.clone(), partial.clone().finish(ids_optional)));
        }
        ready
    }

    /// The calls whose arguments are complete, handed out or not, with their keys, in key
    /// order: what a stream that was cut off made.
    pub(super) fn finish_complete(self, ids_optional: bool) -> impl Iterator<Item = (K, ToolCall)> {
        let complete = self.by_key.into_iter().filter(|(_, partial)| partial.ready);
        complete.map(move |(key, partial)| (key, partial.finish(ids_optional)))
    }

    /// The finished calls with their keys, in key order; see [`Partial::finish`].
    pub(super) fn finish(self, ids_optional: bool) -> impl Iterator<Item = (K, ToolCall)> {
        self.by_key.into_iter().map(move |(key, partial)| (key, partial.finish(ids_optional)))
    }
}

/// The unsigned integer at `value[key]`.
pub(super) fn index(value: &Value, key: &str) -> Option<u64> {
    value.get(key).and_then(Value::as_u64)
}

/// The string at `value[key]`.
pub(super) fn text<'a>(value: &'a Value, key: &str) -> Option<&'a str> {
    value.get(key).and_then(Value::as_str)
}
