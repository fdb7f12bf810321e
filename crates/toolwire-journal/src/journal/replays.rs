//! The receipts of completed calls, kept in memory: a completed call never changes, so a
//! replay needs no read.

use std::collections::HashMap;
use std::sync::Mutex;

use toolwire::Receipt;

/// How many receipts are kept; past it, the memory starts over.
const CAPACITY: usize = 4096;

/// Completed calls' digests and receipts, by call id.
#[derive(Debug, Default)]
pub(super) struct Replays {
    map: Mutex<HashMap<String, (String, Receipt)>>,
}

impl Replays {
    /// The receipt of `call_id`, if it is kept and completed as the call with `digest`.
    pub(super) fn get(&self, call_id: &str, digest: &str) -> Option<Receipt> {
        let map = self.map.lock().ok()?;
        map.get(call_id).filter(|(kept, _)| kept == digest).map(|(_, receipt)| receipt.clone())
    }

    /// Keeps the receipt of a completed call.
    pub(super) fn put(&self, call_id: &str, digest: String, receipt: &Receipt) {
        if let Ok(mut map) = self.map.lock() {
            if map.len() >= CAPACITY {
                map.clear();
            }
            map.insert(call_id.to_owned(), (digest, receipt.clone()));
        }
    }
}
