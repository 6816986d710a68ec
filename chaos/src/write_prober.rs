//! The write prober: commits a small write (GetNewApplication, one Raft entry) over and over
//! on every replica, straight to its real address, to time how long each failover leaves the
//! cluster unable to commit. The ids it is given also show whether a committed write was lost:
//! a lost one is handed out again.

use std::collections::BTreeMap;
use std::time::Duration;

use tokio::task::JoinSet;
use tokio::time::timeout;
use tokio_util::sync::CancellationToken;
use tonic::transport::Channel;
use yarn_proto::ids::ApplicationId;
use yarn_proto::pb::GetNewApplicationRequestProto;
use yarn_proto::pb::application_client_protocol_client::ApplicationClientProtocolClient;

use crate::observations::WriteSample;
use crate::run_clock::RunClock;

/// How long one write may take. Generous: a leader that lost its majority holds the call, and
/// a loaded two-core machine can take hundreds of milliseconds to commit.
const CALL_DEADLINE: Duration = Duration::from_secs(2);

/// The pause after an answer (a committed write or a follower's refusal) before the replica is
/// asked again, which bounds both the probe's load and the timing error of an unavailability.
const PAUSE: Duration = Duration::from_millis(50);

/// Asks every replica in its own loop, concurrently, until `cancel` fires, and returns every
/// committed write in time order. Followers refuse at once, so the replica that leads commits
/// within a pause and a commit of becoming able to. Straight to each replica's real client
/// address: the proxies' faults never delay the probe itself, so what it times is the
/// cluster's own unavailability.
pub async fn probe_writes(
    clients: BTreeMap<String, ApplicationClientProtocolClient<Channel>>,
    clock: RunClock,
    cancel: CancellationToken,
) -> Vec<WriteSample> {
    let mut probes = JoinSet::new();
    for (rm_id, client) in clients {
        probes.spawn(probe_replica(rm_id, client, clock, cancel.clone()));
    }
    let mut samples = Vec::new();
    while let Some(joined) = probes.join_next().await {
        if let Ok(mut replica) = joined {
            samples.append(&mut replica);
        }
    }
    samples.sort_by_key(|sample| (sample.at_ms, sample.invoked_ms));
    samples
}

async fn probe_replica(
    rm_id: String,
    mut client: ApplicationClientProtocolClient<Channel>,
    clock: RunClock,
    cancel: CancellationToken,
) -> Vec<WriteSample> {
    let mut samples = Vec::new();
    loop {
        let invoked_ms = clock.now_ms();
        let call = timeout(
            CALL_DEADLINE,
            client.get_new_application(GetNewApplicationRequestProto {}),
        );
        let answered = tokio::select! {
            () = cancel.cancelled() => return samples,
            answered = call => answered,
        };
        match answered {
            Ok(Ok(answer)) => samples.push(WriteSample {
                invoked_ms,
                at_ms: clock.now_ms(),
                rm_id: rm_id.clone(),
                application_id: answer
                    .into_inner()
                    .application_id
                    .and_then(|id| ApplicationId::try_from(id).ok())
                    .map_or_else(String::new, |id| id.to_string()),
            }),
            Ok(Err(_)) => {}
            // Timed out: ask again at once, the replica may be about to commit.
            Err(_) => continue,
        }
        tokio::select! {
            () = cancel.cancelled() => return samples,
            () = tokio::time::sleep(PAUSE) => {}
        }
    }
}
