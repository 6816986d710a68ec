//! [`ManagerNodeContext`]: the AMRMProxy's view of this node, read live from the container
//! manager.

use std::sync::{OnceLock, Weak};

use yarn_amrmproxy::NodeContext;
use yarn_proto::ids::NodeId;
use yarn_security::MasterKey;

use crate::container_manager::ContainerManager;
use crate::token_check::NmKeyKind;

/// The node id, web address and token keys of this NodeManager, as the AMRMProxy's
/// distributed scheduler needs them.
///
/// The keys are read from the container manager on every call, so a key the RM ships in a
/// heartbeat signs the next local allocation. The manager is held weakly: it owns the proxy
/// host, which owns this context, and a strong reference would keep both alive forever. Until
/// the manager is attached, and after it is gone, no key is known.
#[derive(Debug)]
pub struct ManagerNodeContext {
    node_id: NodeId,
    http_address: String,
    manager: OnceLock<Weak<ContainerManager>>,
}

impl ManagerNodeContext {
    /// The context of node `node_id`, whose web server listens on `http_address`.
    pub fn new(node_id: NodeId, http_address: String) -> Self {
        Self {
            node_id,
            http_address,
            manager: OnceLock::new(),
        }
    }

    /// Reads the keys from `manager` from now on; a second call changes nothing.
    pub fn attach(&self, manager: Weak<ContainerManager>) {
        let _ = self.manager.set(manager);
    }

    fn key(&self, kind: NmKeyKind) -> Option<MasterKey> {
        self.manager.get()?.upgrade()?.current_master_key(kind)
    }
}

impl NodeContext for ManagerNodeContext {
    fn node_id(&self) -> NodeId {
        self.node_id.clone()
    }

    fn http_address(&self) -> String {
        self.http_address.clone()
    }

    fn container_token_master_key(&self) -> Option<MasterKey> {
        self.key(NmKeyKind::ContainerToken)
    }

    fn nm_token_master_key(&self) -> Option<MasterKey> {
        self.key(NmKeyKind::NmToken)
    }

    fn now_ms(&self) -> i64 {
        yarn_security::now_ms()
    }
}
