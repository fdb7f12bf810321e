//! Single use: where spent approvals are kept, so the same answer never opens a second run.

use std::collections::HashMap;
use std::fmt;
use std::future::Future;
use std::pin::Pin;
use std::sync::{Arc, Mutex};
use std::time::SystemTime;

/// An approval (or an answer to a handler's own request) being spent: the call it answers
/// is about to start. It is `#[non_exhaustive]`: build one with [`new`](Self::new).
///
/// ```
/// use std::time::{Duration, SystemTime};
/// use toolwire::policy::SpentApproval;
///
/// let until = SystemTime::now() + Duration::from_secs(60);
/// let spent = SpentApproval::new("apr-1", "0".repeat(64), until);
/// assert_eq!(spent.id, "apr-1");
/// ```
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub struct SpentApproval {
    /// The answer's id, in its one valid spelling (ids parse strictly, so two different
    /// strings are two different approvals).
    pub id: String,
    /// The digest of the call it was issued for: see [`call_digest`](super::call_digest).
    pub digest: String,
    /// When the approval lapses. A store may forget it after that: an expired id is refused
    /// before the store is asked.
    pub expires_at: SystemTime,
}

impl SpentApproval {
    /// The approval `id`, issued for the call whose digest is `digest`, lapsing at
    /// `expires_at`.
    pub fn new(id: impl Into<String>, digest: impl Into<String>, expires_at: SystemTime) -> Self {
        Self { id: id.into(), digest: digest.into(), expires_at }
    }
}

/// Why an approval could not be spent. Either way the call fails closed, as
/// [`Denied`](crate::FailureKind::Denied), and nothing runs.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum SpendError {
    /// It was spent before: it already opened a run.
    AlreadySpent,
    /// The store could not record it (full, unreachable, ...), saying why.
    Store(String),
}

impl fmt::Display for SpendError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Self::AlreadySpent => f.write_str("the approval was already used"),
            Self::Store(why) => write!(f, "the approval could not be recorded as used: {why}"),
        }
    }
}

impl std::error::Error for SpendError {}

/// The future a store's [`spend`](ApprovalStore::spend) returns.
pub type SpendFuture = Pin<Box<dyn Future<Output = Result<(), SpendError>> + Send>>;

/// Where a registry keeps the approvals it has spent.
///
/// An accepted answer is spent when the call it approves starts, after the policy step and
/// before `authorize` and the handler: the store records its id, and a second spend of the
/// same id fails with [`SpendError::AlreadySpent`], so the same answer never runs a call
/// twice, in one dispatch or across invocations. By default a registry keeps them in memory
/// ([`MemoryApprovalStore`]), which holds for the one process; a store shared by many
/// processes (`toolwire-journal`'s `Journal` is one) makes single use hold across them and
/// across restarts. Set it with
/// [`RegistryBuilder::approval_store`](crate::RegistryBuilder::approval_store).
///
/// # Contract
///
/// `spend` must be atomic: of any number of concurrent spends of one id, in any of the
/// processes sharing the store, exactly one gets `Ok`. It may forget an id after its
/// `expires_at`. When it cannot tell, it must fail ([`SpendError::Store`]): the call then
/// fails closed.
///
/// ```
/// use std::collections::HashSet;
/// use std::sync::Mutex;
/// use toolwire::policy::{ApprovalStore, SpendError, SpendFuture, SpentApproval};
///
/// #[derive(Default)]
/// struct Ledger(Mutex<HashSet<String>>);
///
/// impl ApprovalStore for Ledger {
///     fn spend(&self, approval: SpentApproval) -> SpendFuture {
///         let fresh = self.0.lock().map(|mut ids| ids.insert(approval.id)).unwrap_or(false);
///         Box::pin(async move { if fresh { Ok(()) } else { Err(SpendError::AlreadySpent) } })
///     }
/// }
/// ```
pub trait ApprovalStore: Send + Sync + 'static {
    /// Records `approval` as spent, or says why it cannot be.
    fn spend(&self, approval: SpentApproval) -> SpendFuture;
}

/// The default [`ApprovalStore`]: spent ids in memory, for one process, each kept until its
/// approval lapses.
///
/// It is bounded: past [`capacity`](Self::with_capacity) live (unexpired) approvals it
/// refuses to spend more, failing those calls closed, rather than forget one that could then
/// be replayed. Expired ids are dropped as the map grows, so a spend costs one hash lookup
/// and one insert, plus, now and then, one sweep whose cost is spread over the inserts before
/// it.
pub struct MemoryApprovalStore {
    capacity: usize,
    spent: Mutex<Spent>,
}

/// The ids, and the size at which the next sweep of expired ones runs.
struct Spent {
    ids: HashMap<Box<str>, SystemTime>,
    sweep_at: usize,
}

/// Live approvals a default store holds before it refuses more.
pub const DEFAULT_SPENT_CAPACITY: usize = 100_000;

impl MemoryApprovalStore {
    /// A store holding up to [`DEFAULT_SPENT_CAPACITY`] live approvals.
    pub fn new() -> Self {
        Self::with_capacity(DEFAULT_SPENT_CAPACITY)
    }

    /// A store holding up to `capacity` live approvals (at least one).
    pub fn with_capacity(capacity: usize) -> Self {
        let capacity = capacity.max(1);
        let spent = Spent { ids: HashMap::new(), sweep_at: capacity.min(1024) };
        Self { capacity, spent: Mutex::new(spent) }
    }

    /// How many spent approvals it holds now, expired ones not yet swept included.
    pub fn len(&self) -> usize {
        self.spent.lock().map_or(0, |spent| spent.ids.len())
    }

    /// Whether it holds none.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// Spends `id` at once: the store's whole work happens under one short lock.
    pub(crate) fn spend_now(&self, id: &str, expires_at: SystemTime) -> Result<(), SpendError> {
        let Ok(mut spent) = self.spent.lock() else {
            return Err(SpendError::Store("the in-memory store was poisoned".into()));
        };
        if spent.ids.contains_key(id) {
            return Err(SpendError::AlreadySpent);
        }
        if spent.ids.len() >= spent.sweep_at {
            let now = SystemTime::now();
            spent.ids.retain(|_, lapses| *lapses > now);
            // Sweep again once the map has doubled, so sweeps cost O(1) per insert.
            spent.sweep_at = (spent.ids.len() * 2).clamp(1024.min(self.capacity), self.capacity);
            if spent.ids.len() >= self.capacity {
                return Err(SpendError::Store(format!(
                    "{} approvals are live, the most this store holds",
                    self.capacity
                )));
            }
        }
        spent.ids.insert(id.into(), expires_at);
        Ok(())
    }
}

impl Default for MemoryApprovalStore {
    fn default() -> Self {
        Self::new()
    }
}

impl ApprovalStore for MemoryApprovalStore {
    fn spend(&self, approval: SpentApproval) -> SpendFuture {
        let spent = self.spend_now(&approval.id, approval.expires_at);
        Box::pin(std::future::ready(spent))
    }
}

impl fmt::Debug for MemoryApprovalStore {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("MemoryApprovalStore")
            .field("capacity", &self.capacity)
            .field("len", &self.len())
            .finish()
    }
}

/// A registry's store: the in-memory one, spent without a future, or the host's.
#[derive(Clone)]
pub(crate) enum Spender {
    Memory(Arc<MemoryApprovalStore>),
    Host(Arc<dyn ApprovalStore>),
}

impl Spender {
    /// The store of calls made outside a registry, one per process.
    pub(crate) fn process() -> &'static Spender {
        static STORE: std::sync::OnceLock<Spender> = std::sync::OnceLock::new();
        STORE.get_or_init(|| Spender::Memory(Arc::new(MemoryApprovalStore::new())))
    }

    /// Spends `approval`: at once in the in-memory store, through its future in the host's.
    pub(crate) fn spend(&self, approval: SpentApproval) -> SpendFuture {
        match self {
            Spender::Memory(store) => store.spend(approval),
            Spender::Host(store) => store.spend(approval),
        }
    }

    /// Whether spending needs a future.
    pub(crate) fn is_async(&self) -> bool {
        matches!(self, Spender::Host(_))
    }
}

impl fmt::Debug for Spender {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Spender::Memory(store) => store.fmt(f),
            Spender::Host(_) => f.write_str("ApprovalStore(..)"),
        }
    }
}
