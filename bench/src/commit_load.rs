//! Commit latency: concurrent proposers, each sending one GetNewApplication at a time to the
//! leader over its own mutual-TLS connection.

use std::time::{Duration, Instant};

use anyhow::Context;
use tokio::task::JoinSet;
use tonic::transport::Channel;
use yarn_minicluster::RunningCluster;
use yarn_proto::pb::GetNewApplicationRequestProto;
use yarn_proto::pb::application_client_protocol_client::ApplicationClientProtocolClient;
use yarn_security::ChannelOptions;

use crate::raft_bench_report::CommitRun;

/// How long a proposer pauses after a failed write, so that a refusing replica (during an
/// election) is not asked in a tight loop.
const ERROR_PAUSE: Duration = Duration::from_millis(10);

/// The connection limits of a proposer: generous, because under load the leader's queue, not
/// the network, sets the latency, and a timeout would only turn a slow write into an error.
const PROPOSER_CHANNEL: ChannelOptions = ChannelOptions {
    connect_timeout: Duration::from_secs(10),
    request_timeout: Duration::from_secs(10),
    keep_alive_interval: Duration::from_secs(10),
    keep_alive_timeout: Duration::from_secs(20),
    local_address: None,
};

/// What one proposer measured.
#[derive(Debug, Default)]
struct ProposerTally {
    samples: Vec<Duration>,
    errors: u64,
    first_error: Option<String>,
    last_done: Option<Instant>,
}

/// Runs `proposers` concurrent proposers against the current leader: each connects, then
/// sends GetNewApplication one after another for `warmup` (not recorded) and then for
/// `duration` (recorded). A write counts in the window it was sent in; its latency runs from
/// just before the call to the moment the response (or error) arrived. The leader's term is
/// read before and after, to count the elections the load caused.
///
/// # Errors
///
/// When there is no leader, a proposer cannot connect to it, or a proposer task panics.
pub async fn measure_commits(
    cluster: &mut RunningCluster,
    proposers: usize,
    warmup: Duration,
    duration: Duration,
) -> anyhow::Result<CommitRun> {
    let leader = cluster.leader().await?;
    let clients = cluster
        .clients(&leader.rm_id, proposers, &PROPOSER_CHANNEL)
        .await?;
    let record_from = Instant::now() + warmup;
    let until = record_from + duration;
    let mut running = JoinSet::new();
    for client in clients {
        running.spawn(propose(client, record_from, until));
    }
    let mut samples = Vec::new();
    let mut errors = 0;
    let mut first_error = None;
    let mut last_done = record_from;
    while let Some(joined) = running.join_next().await {
        let tally = joined.context("a proposer task failed")?;
        samples.extend(tally.samples);
        errors += tally.errors;
        first_error = first_error.or(tally.first_error);
        last_done = last_done.max(tally.last_done.unwrap_or(record_from));
    }
    // Heartbeats that the loaded leader sends too late start elections; the term tells how
    // many there were.
    let term_after = cluster.leader().await?.term;
    let run = CommitRun::new(
        proposers,
        leader.rm_id,
        &mut samples,
        errors,
        first_error,
        last_done.saturating_duration_since(record_from),
        term_after.saturating_sub(leader.term),
    );
    tracing::info!(
        "{} proposer(s): {} writes, {} errors, {:.0} writes/s, {} election(s)",
        run.proposers,
        run.ops,
        run.errors,
        run.throughput_ops_per_sec,
        run.elections
    );
    Ok(run)
}

/// One proposer's loop: a write at a time until `until`, recording those sent from
/// `record_from` on.
async fn propose(
    mut client: ApplicationClientProtocolClient<Channel>,
    record_from: Instant,
    until: Instant,
) -> ProposerTally {
    let mut tally = ProposerTally::default();
    loop {
        let sent = Instant::now();
        if sent >= until {
            return tally;
        }
        let outcome = client
            .get_new_application(GetNewApplicationRequestProto {})
            .await;
        let done = Instant::now();
        let recorded = sent >= record_from;
        if recorded {
            tally.last_done = Some(done);
        }
        match outcome {
            Ok(_) if recorded => tally.samples.push(done - sent),
            Ok(_) => {}
            Err(status) => {
                if recorded {
                    tally.errors += 1;
                    if tally.first_error.is_none() {
                        tally.first_error =
                            Some(format!("{:?}: {}", status.code(), status.message()));
                    }
                }
                tokio::time::sleep(ERROR_PAUSE).await;
            }
        }
    }
}
