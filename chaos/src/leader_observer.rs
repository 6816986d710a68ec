//! The leader observer: polls every replica's GetServiceStatus, past the proxies, and keeps
//! each change.

use std::collections::BTreeMap;
use std::time::Duration;

use tokio_util::sync::CancellationToken;
use tonic::transport::Channel;
use yarn_proto::pb::resource_manager_administration_protocol_client::ResourceManagerAdministrationProtocolClient;

use crate::chaos_cluster::replica_statuses;
use crate::observations::LeaderSample;
use crate::run_clock::RunClock;

/// How often every replica is asked.
pub const LEADER_POLL: Duration = Duration::from_millis(100);

/// Asks every replica for its status every [`LEADER_POLL`] until `cancel` fires, and returns
/// a sample each time a replica's (ACTIVE, term, leader) differs from its previous answer. A
/// replica that does not answer (killed, paused) yields nothing until it answers again.
pub async fn observe_leaders(
    admins: BTreeMap<String, ResourceManagerAdministrationProtocolClient<Channel>>,
    clock: RunClock,
    cancel: CancellationToken,
) -> Vec<LeaderSample> {
    let mut samples: Vec<LeaderSample> = Vec::new();
    let mut last: BTreeMap<String, (bool, u64, String)> = BTreeMap::new();
    let mut ticks = tokio::time::interval(LEADER_POLL);
    ticks.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Delay);
    loop {
        tokio::select! {
            () = cancel.cancelled() => return samples,
            _ = ticks.tick() => {}
        }
        for status in replica_statuses(&admins).await {
            let Ok(answer) = status.answer else { continue };
            let view = (answer.active, answer.term, answer.leader_rm_id.clone());
            if last.get(&status.rm_id) == Some(&view) {
                continue;
            }
            last.insert(status.rm_id.clone(), view);
            samples.push(LeaderSample {
                at_ms: clock.now_ms(),
                rm_id: status.rm_id,
                active: answer.active,
                term: answer.term,
                leader_rm_id: answer.leader_rm_id,
            });
        }
    }
}
