//! [`Watch`]: reloading a [`CedarPolicy`] when its files change.

use std::hash::{DefaultHasher, Hash, Hasher};
use std::time::Duration;

use crate::error::CedarError;
use crate::policy::CedarPolicy;
use crate::source;

/// A task that reloads a policy whose files changed; made by [`CedarPolicy::watch`]. It stops
/// when dropped.
#[derive(Debug)]
#[must_use = "the watch stops when dropped"]
pub struct Watch {
    task: tokio::task::JoinHandle<()>,
}

impl Drop for Watch {
    fn drop(&mut self) {
        self.task.abort();
    }
}

impl CedarPolicy {
    /// Reads the policy's files every `every` and, when their text changed, calls
    /// [`reload`](Self::reload) and hands its outcome to `on_reload`: the number of policies
    /// now in force, or why the new text was refused (the old policies stay in force). A
    /// policy made from a text never changes, and its watch does nothing.
    ///
    /// It needs a Tokio runtime with its time driver, and runs until the [`Watch`] is
    /// dropped.
    pub fn watch(
        &self,
        every: Duration,
        on_reload: impl Fn(Result<usize, CedarError>) + Send + Sync + 'static,
    ) -> Watch {
        let policy = self.clone();
        let task = tokio::spawn(async move {
            if policy.path().is_none() {
                return;
            }
            let mut seen = fingerprint(&policy);
            let mut tick = tokio::time::interval(every.max(Duration::from_millis(10)));
            tick.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Delay);
            tick.tick().await;
            loop {
                tick.tick().await;
                let now = fingerprint(&policy);
                if now != seen {
                    seen = now;
                    on_reload(policy.reload());
                }
            }
        });
        Watch { task }
    }
}

/// A hash of the policy's file names and texts, or of the error reading them.
fn fingerprint(policy: &CedarPolicy) -> u64 {
    let mut hasher = DefaultHasher::new();
    match source::read(policy.origin()) {
        Ok(files) => {
            for file in files {
                file.name.hash(&mut hasher);
                file.text.hash(&mut hasher);
            }
        }
        Err(error) => error.message().hash(&mut hasher),
    }
    hasher.finish()
}
