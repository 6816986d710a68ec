//! One failover trial: SIGKILL the leader and time until a surviving replica commits a write.

use std::time::{Duration, Instant};

use anyhow::Context;
use tokio::time::timeout;
use yarn_minicluster::{RunningCluster, millis};
use yarn_nodemanager::executor::Signal;
use yarn_proto::pb::GetNewApplicationRequestProto;
use yarn_security::ChannelOptions;

use crate::raft_bench_report::FailoverTrial;

/// How long each write to a survivor may take before the next survivor is asked. A follower
/// refuses at once; a new leader still electing or applying its first entry holds the call.
const CALL_DEADLINE: Duration = Duration::from_millis(200);

/// The pause between two rounds over the survivors, which bounds the timing error.
const ROUND_PAUSE: Duration = Duration::from_millis(2);

/// How long the survivors may take to commit a write before the trial fails.
const FAILOVER_DEADLINE: Duration = Duration::from_secs(30);

/// How long the cluster must agree on one leader before a trial kills it.
pub const STABLE_FOR: Duration = Duration::from_secs(1);

/// Survivor channels: already connected before the kill, so the trial times the failover and
/// not TCP and TLS handshakes.
const SURVIVOR_CHANNEL: ChannelOptions = ChannelOptions {
    connect_timeout: Duration::from_secs(5),
    request_timeout: Duration::from_secs(5),
    keep_alive_interval: Duration::from_secs(10),
    keep_alive_timeout: Duration::from_secs(20),
    local_address: None,
};

/// Runs one trial once the cluster has agreed on a leader for [`STABLE_FOR`]: connects to
/// the other replicas, SIGKILLs the leader (t0 is taken just before), then sends
/// GetNewApplication to each survivor in turn, each call limited to 200 ms and rounds 2 ms
/// apart, until one succeeds (t1). The failover time is t1 - t0. Afterwards the killed
/// replica is restarted and the trial returns once it has caught up with the new leader, so
/// every trial starts from three replicas.
///
/// # Errors
///
/// When the cluster does not settle, the leader's pid is unknown or cannot be signalled, no
/// survivor commits a write within 30 seconds (the last refusal is named), or the killed
/// replica does not come back and catch up.
pub async fn failover_trial(cluster: &mut RunningCluster) -> anyhow::Result<FailoverTrial> {
    let leader = cluster.wait_stable(STABLE_FOR).await?;
    let survivors: Vec<String> = cluster
        .rm_ids()
        .filter(|rm_id| *rm_id != leader)
        .map(str::to_owned)
        .collect();
    let mut clients = Vec::new();
    for rm_id in &survivors {
        let client = cluster.clients(rm_id, 1, &SURVIVOR_CHANNEL).await?;
        clients.extend(client.into_iter().map(|client| (rm_id.clone(), client)));
    }
    let pid = cluster.pid(&leader)?;

    let t0 = Instant::now();
    Signal::Kill
        .send(pid)
        .with_context(|| format!("sending SIGKILL to the leader {leader} (pid {pid})"))?;
    let mut last_refusal = String::from("no answer yet");
    let new_leader = 'rounds: loop {
        for (rm_id, client) in &mut clients {
            match timeout(
                CALL_DEADLINE,
                client.get_new_application(GetNewApplicationRequestProto {}),
            )
            .await
            {
                Ok(Ok(_)) => break 'rounds rm_id.clone(),
                Ok(Err(status)) => {
                    last_refusal = format!("{rm_id}: {:?}: {}", status.code(), status.message());
                }
                Err(_) => last_refusal = format!("{rm_id}: no answer within {CALL_DEADLINE:?}"),
            }
        }
        anyhow::ensure!(
            t0.elapsed() < FAILOVER_DEADLINE,
            "no surviving replica committed a write within {FAILOVER_DEADLINE:?} of killing \
             the leader {leader}; last refusal from {last_refusal}"
        );
        tokio::time::sleep(ROUND_PAUSE).await;
    };
    let failover = t0.elapsed();
    tracing::info!(
        "killed {leader}: {new_leader} committed a write {:.1} ms later",
        millis(failover)
    );

    cluster.restart(&leader).await?;
    cluster.wait_caught_up(&leader).await?;
    Ok(FailoverTrial {
        killed: leader,
        new_leader,
        failover_ms: millis(failover),
    })
}
