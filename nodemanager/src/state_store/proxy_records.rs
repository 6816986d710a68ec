//! [`ProxyRecords`]: the AMRMProxy's records in the NodeManager state store.

use std::sync::Arc;

use yarn_amrmproxy::{BoxError, MemoryProxyStateStore, ProxyStateStore, StoredProxyState};
use yarn_proto::ids::ApplicationId;

use crate::Error;
use crate::state_store::SledStore;

/// The key of the proxy's master keys record.
const MASTER_KEYS_KEY: &str = "master_keys";
/// The prefix of an application's record key; the application id follows.
const APPLICATION_PREFIX: &str = "application/";

/// The AMRMProxy's view of the NodeManager state store (Hadoop keeps the same records under
/// `AMRMProxy/` in its NM store): every put and removal is flushed to disk before it returns
/// when recovery is enabled, and kept in memory otherwise, where it survives the proxy but not
/// the process, as everything else of a NodeManager without recovery.
#[derive(Debug, Clone)]
pub struct ProxyRecords {
    backend: Backend,
}

#[derive(Debug, Clone)]
enum Backend {
    Sled(SledStore),
    Memory(Arc<MemoryProxyStateStore>),
}

impl ProxyRecords {
    pub(super) fn sled(store: SledStore) -> Self {
        Self {
            backend: Backend::Sled(store),
        }
    }

    pub(super) fn memory() -> Self {
        Self {
            backend: Backend::Memory(Arc::new(MemoryProxyStateStore::new())),
        }
    }
}

impl ProxyStateStore for ProxyRecords {
    fn put_application(&self, application: ApplicationId, record: Vec<u8>) -> Result<(), BoxError> {
        match &self.backend {
            Backend::Sled(store) => {
                Ok(store.put_proxy_record(&application_key(application), record)?)
            }
            Backend::Memory(memory) => memory.put_application(application, record),
        }
    }

    fn remove_application(&self, application: ApplicationId) -> Result<(), BoxError> {
        match &self.backend {
            Backend::Sled(store) => Ok(store.remove_proxy_record(&application_key(application))?),
            Backend::Memory(memory) => memory.remove_application(application),
        }
    }

    fn put_master_keys(&self, record: Vec<u8>) -> Result<(), BoxError> {
        match &self.backend {
            Backend::Sled(store) => Ok(store.put_proxy_record(MASTER_KEYS_KEY, record)?),
            Backend::Memory(memory) => memory.put_master_keys(record),
        }
    }

    fn load(&self) -> Result<StoredProxyState, BoxError> {
        let store = match &self.backend {
            Backend::Sled(store) => store,
            Backend::Memory(memory) => return memory.load(),
        };
        let mut state = StoredProxyState::default();
        for (key, value) in store.proxy_records()? {
            if key == MASTER_KEYS_KEY {
                state.master_keys = Some(value);
                continue;
            }
            let application = key
                .strip_prefix(APPLICATION_PREFIX)
                .and_then(|id| id.parse::<ApplicationId>().ok())
                .ok_or_else(|| Error::UnknownProxyRecord { key: key.clone() })?;
            state.applications.insert(application, value);
        }
        Ok(state)
    }
}

fn application_key(application: ApplicationId) -> String {
    format!("{APPLICATION_PREFIX}{application}")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn records_survive_reopening_the_store_and_a_removal_is_durable() {
        let dir = tempfile::tempdir().unwrap();
        let first = ApplicationId::new(1_700_000_000_000, 1);
        let second = ApplicationId::new(1_700_000_000_000, 2);
        {
            let records = ProxyRecords::sled(SledStore::open(dir.path()).unwrap());
            records.put_master_keys(vec![9]).unwrap();
            records.put_application(first, vec![1]).unwrap();
            records.put_application(second, vec![2]).unwrap();
            records.remove_application(first).unwrap();
        }
        let records = ProxyRecords::sled(SledStore::open_when_released(dir.path()));
        let state = records.load().unwrap();
        assert_eq!(state.master_keys, Some(vec![9]));
        assert_eq!(
            state.applications.into_iter().collect::<Vec<_>>(),
            [(second, vec![2])]
        );
    }

    #[test]
    fn without_recovery_the_records_live_in_memory() {
        let records = ProxyRecords::memory();
        let application = ApplicationId::new(1_700_000_000_000, 7);
        records.put_application(application, vec![7]).unwrap();
        assert_eq!(records.clone().load().unwrap().applications.len(), 1);
    }
}
