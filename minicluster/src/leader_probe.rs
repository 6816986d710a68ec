//! Finds the active ResourceManager by asking every replica's admin service for its HA state.

use std::path::Path;
use std::time::Duration;

use anyhow::Context;
use tokio::time::{Instant, MissedTickBehavior, interval, timeout_at};
use tonic::transport::Channel;
use yarn_conf::Configuration;
use yarn_proto::pb::resource_manager_administration_protocol_client::ResourceManagerAdministrationProtocolClient;
use yarn_proto::pb::{HaServiceStateProto, HaServiceStatusRequestProto};
use yarn_security::{ChannelOptions, TlsConfig, connect_lazy};

/// How often every replica is asked while none is active.
const POLL_INTERVAL: Duration = Duration::from_millis(250);

/// The active ResourceManager as it reported itself.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Leader {
    /// Its rm id.
    pub rm_id: String,
    /// The Raft term it leads.
    pub term: u64,
}

/// Admin-protocol clients to every ResourceManager replica, presenting the certificate the
/// client configuration names (the harness user's, for a minicluster).
#[derive(Debug)]
pub struct LeaderProbe {
    replicas: Vec<(String, ResourceManagerAdministrationProtocolClient<Channel>)>,
}

impl LeaderProbe {
    /// Clients for `admin_addresses` (rm id, admin `host:port`) with the TLS settings of
    /// `client_conf_dir`. Nothing is dialed yet: each channel connects on first use and again
    /// after a failure, so replicas that are still starting are simply asked again.
    ///
    /// # Errors
    ///
    /// When the client configuration cannot be loaded, its TLS files cannot be read, or an
    /// address is not `host:port`.
    pub fn new(
        client_conf_dir: &Path,
        admin_addresses: impl IntoIterator<Item = (String, String)>,
    ) -> anyhow::Result<Self> {
        let conf = Configuration::load_dir(client_conf_dir).with_context(|| {
            format!(
                "loading the client configuration {}",
                client_conf_dir.display()
            )
        })?;
        let tls = TlsConfig::from_conf(&conf).with_context(|| {
            format!("reading the TLS settings of {}", client_conf_dir.display())
        })?;
        // Short limits: a replica that does not answer quickly is asked again next round.
        let options = ChannelOptions {
            connect_timeout: Duration::from_secs(1),
            request_timeout: Duration::from_secs(2),
            ..ChannelOptions::default()
        };
        let replicas = admin_addresses
            .into_iter()
            .map(|(rm_id, address)| {
                let channel = connect_lazy(&address, tls.client_config(), &options)
                    .with_context(|| format!("the admin address {address} of {rm_id}"))?;
                Ok((
                    rm_id,
                    ResourceManagerAdministrationProtocolClient::new(channel),
                ))
            })
            .collect::<anyhow::Result<_>>()?;
        Ok(LeaderProbe { replicas })
    }

    /// Asks every replica, in order and round after round, until one reports ACTIVE (the first
    /// to do so wins) or `within` has passed (then `None`). Replicas that are down or refuse
    /// are skipped for the round. Cancelling the future abandons the calls in flight.
    pub async fn find_leader(&mut self, within: Duration) -> Option<Leader> {
        let deadline = Instant::now() + within;
        let mut rounds = interval(POLL_INTERVAL);
        rounds.set_missed_tick_behavior(MissedTickBehavior::Delay);
        loop {
            if timeout_at(deadline, rounds.tick()).await.is_err() {
                return None;
            }
            for (rm_id, client) in &mut self.replicas {
                let asked = timeout_at(
                    deadline,
                    client.get_service_status(HaServiceStatusRequestProto {}),
                )
                .await;
                let Ok(answered) = asked else {
                    return None;
                };
                let Ok(status) = answered.map(tonic::Response::into_inner) else {
                    continue;
                };
                if status.state() == HaServiceStateProto::Active {
                    let rm_id = if status.rm_id.is_empty() {
                        rm_id.clone()
                    } else {
                        status.rm_id
                    };
                    return Some(Leader {
                        rm_id,
                        term: status.current_term,
                    });
                }
            }
        }
    }
}
