//! The inbox's feed: the journal read every half second, and what changed since as
//! numbered events, for the page's event stream, the API's clients and `--notify`.

use std::collections::{HashSet, VecDeque};
use std::sync::{Arc, Mutex, PoisonError};
use std::time::Duration;

use serde_json::{Value, json};
use tokio::sync::{Notify, broadcast};

use super::Shared;
use super::items::{self, Item};

/// How often the journal is read.
const POLL: Duration = Duration::from_millis(500);

/// How many reads of the journal between two expiries of lapsed requests.
const EXPIRE_EVERY: u32 = 20;

/// How many past events are kept for a stream that reconnects.
const KEPT: usize = 4096;

/// A change: an item that started waiting, or one that no longer waits.
#[derive(Debug, Clone)]
pub(crate) struct Event {
    /// Its number: every event has a greater one than the last.
    pub(crate) seq: u64,
    /// `added` or `removed`.
    pub(crate) name: &'static str,
    /// Its JSON: `{"item": ..., "html": ...}` or `{"request_id": ..., "call_id": ...}`.
    pub(crate) data: Value,
}

/// What the feed knows: the items waiting now, as of event `seq`, and the recent events.
#[derive(Debug, Default)]
struct Known {
    seq: u64,
    items: Arc<Vec<Item>>,
    log: VecDeque<Event>,
    read_once: bool,
}

/// The feed, shared by the poller and every request.
#[derive(Debug)]
pub(crate) struct Feed {
    known: Mutex<Known>,
    sender: broadcast::Sender<Event>,
    /// Wakes the poller early, after an answer.
    poke: Notify,
    /// This process's part of every event id.
    epoch: String,
}

impl Feed {
    /// An empty feed.
    pub(crate) fn new() -> Self {
        let (sender, _) = broadcast::channel(KEPT);
        let mut bytes = [0u8; 6];
        // Without randomness, the time tells processes apart well enough.
        let epoch = match getrandom::fill(&mut bytes) {
            Ok(()) => bytes.iter().map(|b| format!("{b:02x}")).collect(),
            Err(_) => {
                let since = std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH);
                format!("{:x}", since.map_or(0, |d| d.as_millis()))
            }
        };
        Self { known: Mutex::new(Known::default()), sender, poke: Notify::new(), epoch }
    }

    /// The items waiting now, and the id of the last event they include.
    pub(crate) fn snapshot(&self) -> (String, Arc<Vec<Item>>) {
        let known = self.known.lock().unwrap_or_else(PoisonError::into_inner);
        (self.id(known.seq), Arc::clone(&known.items))
    }

    /// The id of event `seq`: this process's epoch and the number, so that an id from an
    /// earlier process (a page open across a restart) is told apart.
    pub(crate) fn id(&self, seq: u64) -> String {
        format!("{}-{seq}", self.epoch)
    }

    /// The events after the event `id` (after the last one when `None`), or `None` when they
    /// cannot be told: an id of another process, one to come, or one no longer kept. And a
    /// receiver of the events to come.
    pub(crate) fn since(
        &self,
        id: Option<&str>,
    ) -> (Option<Vec<Event>>, broadcast::Receiver<Event>) {
        let known = self.known.lock().unwrap_or_else(PoisonError::into_inner);
        let receiver = self.sender.subscribe();
        let Some(id) = id else { return (Some(Vec::new()), receiver) };
        let seq = id
            .split_once('-')
            .filter(|(epoch, _)| *epoch == self.epoch)
            .and_then(|(_, seq)| seq.parse::<u64>().ok());
        let oldest = known.log.front().map_or(known.seq, |e| e.seq.saturating_sub(1));
        match seq {
            Some(seq) if seq <= known.seq && seq >= oldest => {
                let past = known.log.iter().filter(|e| e.seq > seq).cloned().collect();
                (Some(past), receiver)
            }
            _ => (None, receiver),
        }
    }

    /// Reads the journal now rather than at the next tick.
    pub(crate) fn poke(&self) {
        self.poke.notify_one();
    }

    /// Replaces the items with `now`, making an event of each change; returns the items that
    /// started waiting.
    fn update(&self, now: Vec<Item>, render: impl Fn(&Item) -> String) -> Vec<Item> {
        let mut known = self.known.lock().unwrap_or_else(PoisonError::into_inner);
        let before: HashSet<&str> = known.items.iter().map(|i| i.request_id.as_str()).collect();
        let after: HashSet<&str> = now.iter().map(|i| i.request_id.as_str()).collect();
        let first = !known.read_once;
        let mut events = Vec::new();
        for gone in known.items.iter().filter(|i| !after.contains(i.request_id.as_str())) {
            let data = json!({"request_id": gone.request_id, "call_id": gone.call_id});
            events.push(("removed", data));
        }
        let added: Vec<Item> =
            now.iter().filter(|i| !before.contains(i.request_id.as_str())).cloned().collect();
        // Oldest first, so that a page that prepends each ends newest first.
        for item in added.iter().rev() {
            events.push(("added", json!({"item": item, "html": render(item)})));
        }
        drop((before, after));
        for (name, data) in events {
            known.seq += 1;
            let event = Event { seq: known.seq, name, data };
            if known.log.len() == KEPT {
                known.log.pop_front();
            }
            known.log.push_back(event.clone());
            let _ = self.sender.send(event);
        }
        known.items = Arc::new(now);
        known.read_once = true;
        // The items found at start were not news.
        if first { Vec::new() } else { added }
    }
}

/// Reads the journal into the feed until the process ends: every [`POLL`], or sooner when
/// poked. A journal that cannot be read is reported once per failure streak, and the items
/// stay as they were.
pub(crate) async fn poll(shared: Shared) {
    let mut failing = false;
    let mut tick: u32 = 0;
    loop {
        // Every ten seconds, the requests that lapsed are settled as declined ("expired"):
        // their calls never run, and they leave the list.
        if tick.is_multiple_of(EXPIRE_EVERY)
            && let Err(error) = shared.journal.library().expire_due().await
        {
            eprintln!("warning: the inbox cannot expire lapsed requests: {error}");
        }
        tick = tick.wrapping_add(1);
        match items::gather(&shared.journal, &shared.registry).await {
            Ok(now) => {
                failing = false;
                let added = shared.feed.update(now, super::page::item_html);
                if let Some(url) = &shared.notify {
                    for item in added {
                        tokio::spawn(notify(url.clone(), shared.base.clone(), item));
                    }
                }
            }
            Err(error) if !failing => {
                failing = true;
                eprintln!("warning: the inbox cannot read the journal: {error}");
            }
            Err(_) => {}
        }
        let _ = tokio::time::timeout(POLL, shared.feed.poke.notified()).await;
    }
}

/// Posts the news that `item` waits to `url`: its ids, tool and question, and the inbox's
/// address, never its arguments.
async fn notify(url: String, base: String, item: Item) {
    let message = json!({
        "event": "waiting",
        "request_id": item.request_id,
        "call_id": item.call_id,
        "kind": item.kind,
        "tool": item.tool.name,
        "prompt": item.prompt,
        "asked_by": item.asked_by,
        "expires_at": item.expires_at,
        "inbox": base,
    });
    toolwire_agent::install_tls_provider();
    let client = reqwest::Client::new();
    let sent = client.post(&url).json(&message).timeout(Duration::from_secs(10)).send().await;
    match sent.map(|response| response.status()) {
        Ok(status) if status.is_success() => {}
        Ok(status) => eprintln!("warning: --notify {url} answered {status}"),
        Err(error) => eprintln!("warning: --notify {url} failed: {error}"),
    }
}

#[cfg(test)]
mod tests {
    use super::Feed;

    /// A page open across a restart reconnected with the earlier process's event number: a
    /// number ahead of the new process's got no events (the page missed what waited), and
    /// one behind got the new process's events as if they were the old one's.
    #[test]
    fn regression_a_page_open_across_a_restart_missed_what_waits() {
        let (earlier, feed) = (Feed::new(), Feed::new());
        let (now, _) = feed.snapshot();
        assert_eq!(feed.since(Some(&now)).0.map(|events| events.len()), Some(0));
        assert!(feed.since(None).0.is_some(), "a new stream starts from now");
        for stale in [earlier.id(0), earlier.id(7), feed.id(1), feed.id(u64::MAX)] {
            assert!(feed.since(Some(&stale)).0.is_none(), "{stale} must reload");
        }
        assert!(feed.since(Some("not-an-id")).0.is_none());
    }
}
