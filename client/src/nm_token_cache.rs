//! The NM tokens an ApplicationMaster received, by node.

use std::collections::HashMap;
use std::sync::{Arc, Mutex, MutexGuard, PoisonError};

use yarn_proto::pb;

/// The newest NM token per NodeManager (`host:port`), as YARN's `NMTokenCache`.
///
/// Clones share one table, so the AMRM client (even inside its heartbeat task) fills it while
/// the code starting containers reads it. A later token for a node replaces the earlier one: the
/// RM sends a new one after its key rolled.
#[derive(Debug, Clone, Default)]
pub struct NmTokenCache {
    /// Short sections only; never held across an `.await`.
    tokens: Arc<Mutex<HashMap<String, pb::TokenProto>>>,
}

impl NmTokenCache {
    /// An empty cache.
    pub fn new() -> Self {
        Self::default()
    }

    /// The token for the node `node_id`, if one arrived.
    pub fn get(&self, node_id: &pb::NodeIdProto) -> Option<pb::TokenProto> {
        self.get_for_address(&node_address(node_id))
    }

    /// The token for the node at `address` (`host:port`), if one arrived.
    pub fn get_for_address(&self, address: &str) -> Option<pb::TokenProto> {
        self.lock().get(address).cloned()
    }

    /// Stores the tokens of `nm_tokens`, each replacing the one its node had; entries without
    /// a node or a token are skipped.
    pub fn insert_all(&self, nm_tokens: &[pb::NmTokenProto]) {
        let mut tokens = self.lock();
        for nm_token in nm_tokens {
            if let (Some(node_id), Some(token)) = (&nm_token.node_id, &nm_token.token) {
                tokens.insert(node_address(node_id), token.clone());
            }
        }
    }

    /// How many nodes have a token.
    pub fn len(&self) -> usize {
        self.lock().len()
    }

    /// Whether no node has a token.
    pub fn is_empty(&self) -> bool {
        self.lock().is_empty()
    }

    /// The table survives a panic elsewhere: every section leaves it consistent.
    fn lock(&self) -> MutexGuard<'_, HashMap<String, pb::TokenProto>> {
        self.tokens.lock().unwrap_or_else(PoisonError::into_inner)
    }
}

/// `host:port` of a node, the form its container manager is called at.
pub(crate) fn node_address(node_id: &pb::NodeIdProto) -> String {
    format!("{}:{}", node_id.host, node_id.port)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn nm_token(host: &str, password: u8) -> pb::NmTokenProto {
        pb::NmTokenProto {
            node_id: Some(pb::NodeIdProto {
                host: host.to_owned(),
                port: 8041,
            }),
            token: Some(pb::TokenProto {
                password: vec![password],
                kind: "NMToken".to_owned(),
                ..Default::default()
            }),
        }
    }

    #[test]
    fn a_later_token_replaces_the_earlier_one_for_its_node_in_every_clone() {
        let cache = NmTokenCache::new();
        let reader = cache.clone();
        cache.insert_all(&[nm_token("h1", 1), nm_token("h2", 2)]);
        cache.insert_all(&[nm_token("h1", 3)]);
        let h1 = pb::NodeIdProto {
            host: "h1".to_owned(),
            port: 8041,
        };
        assert_eq!(reader.get(&h1).unwrap().password, [3]);
        assert_eq!(reader.get_for_address("h2:8041").unwrap().password, [2]);
        assert_eq!(reader.get_for_address("h2:8042"), None);
        assert_eq!(reader.len(), 2);
    }

    #[test]
    fn entries_without_node_or_token_are_skipped() {
        let cache = NmTokenCache::new();
        let mut no_token = nm_token("h1", 1);
        no_token.token = None;
        let mut no_node = nm_token("h2", 2);
        no_node.node_id = None;
        cache.insert_all(&[no_token, no_node]);
        assert!(cache.is_empty());
    }
}
