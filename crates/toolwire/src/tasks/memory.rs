//! [`MemoryTaskStore`]: tasks in memory, for one process.

use std::collections::HashMap;
use std::sync::Mutex;
use std::time::SystemTime;

use super::{TaskFuture, TaskRecord, TaskStore, TaskStoreError};

/// Live tasks a default store holds before it refuses more.
pub const DEFAULT_TASK_CAPACITY: usize = 10_000;

/// A [`TaskStore`] in memory: for one process, and lost when it stops.
///
/// It is bounded: past its capacity of live (unexpired) tasks it refuses to create more,
/// rather than forget one a client still follows. Expired tasks are dropped as it fills.
pub struct MemoryTaskStore {
    capacity: usize,
    tasks: Mutex<HashMap<String, TaskRecord>>,
}

impl MemoryTaskStore {
    /// A store holding up to [`DEFAULT_TASK_CAPACITY`] live tasks.
    pub fn new() -> Self {
        Self::with_capacity(DEFAULT_TASK_CAPACITY)
    }

    /// A store holding up to `capacity` live tasks (at least one).
    pub fn with_capacity(capacity: usize) -> Self {
        Self { capacity: capacity.max(1), tasks: Mutex::new(HashMap::new()) }
    }

    fn with_tasks<T>(
        &self,
        f: impl FnOnce(&mut HashMap<String, TaskRecord>) -> Result<T, TaskStoreError>,
    ) -> Result<T, TaskStoreError> {
        let mut tasks =
            self.tasks.lock().map_err(|_| TaskStoreError("the task map is poisoned".into()))?;
        f(&mut tasks)
    }
}

impl Default for MemoryTaskStore {
    fn default() -> Self {
        Self::new()
    }
}

impl std::fmt::Debug for MemoryTaskStore {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("MemoryTaskStore").field("capacity", &self.capacity).finish_non_exhaustive()
    }
}

impl TaskStore for MemoryTaskStore {
    fn create(&self, record: TaskRecord) -> TaskFuture<()> {
        let capacity = self.capacity;
        let done = self.with_tasks(|tasks| {
            if tasks.len() >= capacity {
                let now = SystemTime::now();
                tasks.retain(|_, task| task.expires_at > now);
            }
            if tasks.len() >= capacity {
                return Err(TaskStoreError(format!("{capacity} tasks are live; no room for more")));
            }
            if tasks.contains_key(&record.id) {
                return Err(TaskStoreError(format!("task id {:?} is taken", record.id)));
            }
            tasks.insert(record.id.clone(), record);
            Ok(())
        });
        Box::pin(std::future::ready(done))
    }

    fn get(&self, id: &str) -> TaskFuture<Option<TaskRecord>> {
        let found = self.with_tasks(|tasks| {
            Ok(tasks.get(id).filter(|task| task.expires_at > SystemTime::now()).cloned())
        });
        Box::pin(std::future::ready(found))
    }

    fn update(&self, mut record: TaskRecord) -> TaskFuture<bool> {
        let written = self.with_tasks(|tasks| match tasks.get_mut(&record.id) {
            Some(stored) if stored.version == record.version => {
                record.version += 1;
                *stored = record;
                Ok(true)
            }
            _ => Ok(false),
        });
        Box::pin(std::future::ready(written))
    }
}
