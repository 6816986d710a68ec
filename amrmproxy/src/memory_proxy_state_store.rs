//! [`MemoryProxyStateStore`]: a [`ProxyStateStore`] in memory, for tests and for NodeManagers
//! running without recovery.

use std::sync::{Mutex, MutexGuard, PoisonError};

use yarn_proto::ids::ApplicationId;

use crate::{BoxError, ProxyStateStore, StoredProxyState};

/// Keeps the records in memory: they survive an [`AmrmProxy`](crate::AmrmProxy) being dropped
/// and rebuilt on the same store (a simulated NodeManager restart), not the process.
#[derive(Debug, Default)]
pub struct MemoryProxyStateStore {
    /// Short sections only; never held across an `.await`.
    state: Mutex<StoredProxyState>,
}

impl MemoryProxyStateStore {
    /// An empty store.
    pub fn new() -> Self {
        Self::default()
    }

    /// A copy of everything stored, for inspection.
    pub fn snapshot(&self) -> StoredProxyState {
        self.lock().clone()
    }

    fn lock(&self) -> MutexGuard<'_, StoredProxyState> {
        self.state.lock().unwrap_or_else(PoisonError::into_inner)
    }
}

impl ProxyStateStore for MemoryProxyStateStore {
    fn put_application(&self, application: ApplicationId, record: Vec<u8>) -> Result<(), BoxError> {
        self.lock().applications.insert(application, record);
        Ok(())
    }

    fn remove_application(&self, application: ApplicationId) -> Result<(), BoxError> {
        self.lock().applications.remove(&application);
        Ok(())
    }

    fn put_master_keys(&self, record: Vec<u8>) -> Result<(), BoxError> {
        self.lock().master_keys = Some(record);
        Ok(())
    }

    fn load(&self) -> Result<StoredProxyState, BoxError> {
        Ok(self.snapshot())
    }
}
