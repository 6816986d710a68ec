//! [`KeyLocks`]: one async lock per cache entry, so that a resource is localized once.

use std::collections::HashMap;
use std::path::PathBuf;
use std::sync::{Arc, Mutex, PoisonError};

use tokio::sync::OwnedMutexGuard;

type Locks = Arc<Mutex<HashMap<PathBuf, Arc<tokio::sync::Mutex<()>>>>>;

/// Async locks by cache-entry directory.
///
/// Containers asking for the same resource at the same time take the same lock: the first
/// localizes it while the others wait, then find the copy and reuse it. A lock lives only
/// while someone holds or awaits it, so the map does not grow with every resource the node
/// ever saw.
#[derive(Debug, Default)]
pub(crate) struct KeyLocks {
    // std Mutex: held only to find or drop an entry, never across an .await.
    locks: Locks,
}

/// Holds one key's lock; dropping it lets the next waiter in.
#[derive(Debug)]
pub(crate) struct KeyGuard {
    key: PathBuf,
    locks: Locks,
    guard: Option<OwnedMutexGuard<()>>,
}

impl KeyLocks {
    /// Waits for `key`'s lock.
    pub(crate) async fn lock(&self, key: PathBuf) -> KeyGuard {
        let lock = Arc::clone(
            self.locks
                .lock()
                .unwrap_or_else(PoisonError::into_inner)
                .entry(key.clone())
                .or_default(),
        );
        KeyGuard {
            key,
            locks: Arc::clone(&self.locks),
            guard: Some(lock.lock_owned().await),
        }
    }
}

impl Drop for KeyGuard {
    fn drop(&mut self) {
        let Some(guard) = self.guard.take() else {
            return;
        };
        let lock = Arc::clone(OwnedMutexGuard::mutex(&guard));
        drop(guard);
        let mut locks = self.locks.lock().unwrap_or_else(PoisonError::into_inner);
        // The map's and ours: nobody else holds or awaits it, and no one can start to, since
        // taking a clone needs the map's lock, held here.
        if Arc::strong_count(&lock) == 2 {
            locks.remove(&self.key);
        }
    }
}

#[cfg(test)]
mod tests {
    use std::time::Duration;

    use super::*;

    #[tokio::test]
    async fn one_holder_per_key_and_the_map_empties() {
        let locks = KeyLocks::default();
        let first = locks.lock(PathBuf::from("a")).await;
        let other = locks.lock(PathBuf::from("b")).await;
        let waiting = tokio::time::timeout(Duration::from_millis(50), locks.lock("a".into()));
        assert!(
            waiting.await.is_err(),
            "a second holder of the same key waits"
        );
        drop(first);
        drop(locks.lock(PathBuf::from("a")).await);
        drop(other);
        assert!(locks.locks.lock().unwrap().is_empty());
    }
}
