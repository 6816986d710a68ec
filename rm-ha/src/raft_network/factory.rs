//! The client side's channel cache: one tonic channel per peer.

use std::collections::BTreeMap;
use std::sync::{Arc, Mutex, PoisonError};

use openraft::RaftNetworkFactory;
use tonic::transport::Channel;
use yarn_security::{ChannelOptions, Dialer, TlsConfig};

use super::RaftGrpcNetwork;
use crate::raft_types::{RmNode, RmNodeId, RmTypeConfig};

/// Creates openraft's per-peer clients, sharing one lazily connected tonic channel per peer.
///
/// A peer's channel is built on first use by the factory's [`Dialer`], in a replica
/// [`Dialer::tls`] with mutual TLS and `options` (connect timeout, HTTP/2 keepalive while
/// idle, default request deadline), and kept for the life of the
/// factory: tonic reconnects it after failures, so openraft's repeated `new_client` calls after
/// errors never pile up connections. A peer whose Raft address changes (a membership change)
/// gets a new channel. Clones share the cache.
///
/// Peer addresses come from this replica's own configuration
/// (`yarn.resourcemanager.ha.raft.address.<rm-id>`) when it names the peer, and from the Raft
/// membership otherwise (members added with `rmadmin -addToCluster`). Local configuration wins
/// so that a peer that moved, or a link routed through a proxy, needs only a configuration
/// change on the replicas that dial it.
#[derive(Clone)]
pub struct RaftGrpcNetworkFactory {
    rm_id: String,
    dialer: Dialer,
    address_book: Arc<BTreeMap<String, String>>,
    /// Channels by peer node id, with the address each was built for. A std mutex: it guards
    /// only map lookups and inserts and is never held across an `.await`. Ordered, so that
    /// dropping the factory closes its connections in one order (a simulated seed replays).
    channels: Arc<Mutex<BTreeMap<RmNodeId, (String, Channel)>>>,
}

impl std::fmt::Debug for RaftGrpcNetworkFactory {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("RaftGrpcNetworkFactory")
            .field("rm_id", &self.rm_id)
            .finish_non_exhaustive()
    }
}

impl RaftGrpcNetworkFactory {
    /// The factory of replica `rm_id`, which dials peers with `tls` (presenting this replica's
    /// own resourcemanager certificate, whose name must be `rm_id` for peers to accept it).
    pub fn new(rm_id: impl Into<String>, tls: TlsConfig, options: ChannelOptions) -> Self {
        Self::dialing_with(rm_id, Dialer::tls(&tls, options))
    }

    /// The factory of replica `rm_id` dialing peers with `dialer`: the simulation's network.
    pub fn dialing_with(rm_id: impl Into<String>, dialer: Dialer) -> Self {
        Self {
            rm_id: rm_id.into(),
            dialer,
            address_book: Arc::new(BTreeMap::new()),
            channels: Arc::new(Mutex::new(BTreeMap::new())),
        }
    }

    /// Dials the peers named in `address_book` (rm-id to `host:port`) at those addresses rather
    /// than at the ones recorded in the membership.
    pub fn with_address_book(mut self, address_book: BTreeMap<String, String>) -> Self {
        self.address_book = Arc::new(address_book);
        self
    }

    /// The cached channel to `target` at `address`, built if absent or built for another address.
    ///
    /// # Errors
    ///
    /// [`yarn_security::Error::InvalidAddress`] when `address` is not `host:port`.
    fn channel(&self, target: RmNodeId, address: &str) -> Result<Channel, yarn_security::Error> {
        // A panic elsewhere while holding the lock cannot leave the map inconsistent: every
        // update is a single insert.
        let mut channels = self.channels.lock().unwrap_or_else(PoisonError::into_inner);
        if let Some((cached_address, channel)) = channels.get(&target)
            && cached_address == address
        {
            return Ok(channel.clone());
        }
        let channel = self.dialer.dial(address)?;
        channels.insert(target, (address.to_owned(), channel.clone()));
        Ok(channel)
    }
}

impl RaftNetworkFactory<RmTypeConfig> for RaftGrpcNetworkFactory {
    type Network = RaftGrpcNetwork;

    async fn new_client(&mut self, target: RmNodeId, node: &RmNode) -> RaftGrpcNetwork {
        let mut node = node.clone();
        if let Some(address) = self.address_book.get(&node.rm_id) {
            node.raft_address.clone_from(address);
        }
        let channel = self.channel(target, &node.raft_address);
        if let Err(err) = &channel {
            tracing::error!(peer = %node.rm_id, %err, "cannot build a channel to the Raft peer");
        }
        RaftGrpcNetwork::new(self.rm_id.clone(), target, node, channel)
    }
}
