//! `yarn-ha bench allocate-am`: the ApplicationMaster of `bench allocate`. It runs in the AM
//! container the RM launched, so it holds the AMRMToken its NodeManager gave it and talks to
//! whatever the cluster puts in front of the RM (the node's AMRMProxy, or the RM itself).

use std::path::Path;
use std::time::Duration;

use anyhow::Context;
use serde::{Deserialize, Serialize};
use tokio::time::Instant;
use yarn_client::{AmRmClient, RmClientConfig, read_amrm_token_from_env};
use yarn_conf::Configuration;
use yarn_minicluster::millis;
use yarn_proto::pb;

use crate::allocate_am_options::AllocateAmOptions;
use crate::am_rm_calls::AmRmCalls;
use crate::amrm_transport::AmrmTransport;
use crate::hadoop_am_rm_client::HadoopAmRmClient;

/// The pause between two allocate calls while a round waits for its containers: short, so
/// the measured time overshoots the arrival of the last container by at most this plus one
/// allocate round trip, yet enough to leave the RM a moment between calls.
pub const POLL_PAUSE: Duration = Duration::from_millis(5);

/// The pause between rounds: one NodeManager heartbeat interval (YARN's default, 1 s), so
/// that every node has reported its queue again after the previous round's containers were
/// handed back, and each round starts from a settled cluster.
pub const ROUND_PAUSE: Duration = Duration::from_secs(1);

/// The longest one round may wait for its containers before the ApplicationMaster gives up.
pub const ROUND_LIMIT: Duration = Duration::from_secs(60);

/// The size of every container asked for: the smallest the scheduler hands out by default
/// (`yarn.scheduler.minimum-allocation-mb`, 1024 MB) and one vcore.
pub const CONTAINER_MB: i64 = 1024;

/// Where the NodeManager puts the host the ApplicationMaster runs on.
const NM_HOST_ENV: &str = "NM_HOST";

/// What one ApplicationMaster run measured, as it writes it to its `--out` file.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct AllocateAmSamples {
    /// `GUARANTEED` or `OPPORTUNISTIC`, as the protocol names it.
    pub execution_type: String,
    /// Containers asked for in each round.
    pub containers: u32,
    /// The unrecorded warm-up round, in milliseconds.
    pub warmup_ms: f64,
    /// One sample per measured round, in order: from just before the allocate call that sent
    /// the round's ask until the call that brought the last of its containers returned, in
    /// milliseconds.
    pub samples_ms: Vec<f64>,
}

/// Runs the ApplicationMaster inside its AM container, blocking on a runtime of its own.
///
/// Reads the AMRMToken named by `HADOOP_TOKEN_FILE_LOCATION` and registers (host `NM_HOST`)
/// over `options.transport`: gRPC through `YARN_AMRM_PROXY_ADDRESS` when the NodeManager named
/// a proxy, else to the RMs; Hadoop IPC with SASL TOKEN to the leading RM's scheduler address
/// (see [`HadoopAmRmClient`]). Then it runs one
/// warm-up round and `options.rounds` measured rounds. A round adds an ask for
/// `options.containers` containers of 1 GB and 1 vcore of the execution type anywhere,
/// heartbeats every [`POLL_PAUSE`] until they are all in hand, and then gives them back unused
/// with one more allocate, not timed; rounds are [`ROUND_PAUSE`] apart. Writes [`AllocateAmSamples`] as JSON
/// to `options.out` and unregisters SUCCEEDED. On a failure after registering it unregisters
/// FAILED with the error as diagnostics, so the driver can show it.
///
/// `conf` gives the RM addresses and the TLS identity (the client's conf dir, from
/// `YARN_CONF_DIR` or `--conf-dir`); Hadoop IPC uses the addresses only (it is not encrypted).
///
/// # Errors
///
/// Invalid options; no usable AMRM configuration or token; a refused AMRM call; a container
/// of another execution type than asked; a round that did not get its containers within
/// [`ROUND_LIMIT`]; the RM telling the ApplicationMaster to shut down; the output file not
/// written.
pub fn run_allocate_am(conf: &Configuration, options: &AllocateAmOptions) -> anyhow::Result<()> {
    options.validate()?;
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .context("creating the ApplicationMaster's runtime")?;
    runtime.block_on(async {
        let config = RmClientConfig::for_application_master(conf)
            .context("reading the ApplicationMaster's RM client settings")?;
        let token = read_amrm_token_from_env()?;
        let host = std::env::var(NM_HOST_ENV).unwrap_or_default();
        match options.transport {
            AmrmTransport::Grpc => {
                let mut am = AmRmClient::new(&config, token);
                am.register(&host, 0, "")
                    .await
                    .context("registering the ApplicationMaster")?;
                measure_and_finish(&mut am, options).await
            }
            AmrmTransport::HadoopIpc => {
                let mut am = HadoopAmRmClient::register(&config, token, &host).await?;
                measure_and_finish(&mut am, options).await
            }
        }
    })
}

/// Measures the rounds on the registered `am`, writes the samples and unregisters:
/// SUCCEEDED, or FAILED with the error as diagnostics.
async fn measure_and_finish(
    am: &mut impl AmRmCalls,
    options: &AllocateAmOptions,
) -> anyhow::Result<()> {
    let measured = async {
        let samples = measure_rounds(am, options).await?;
        write_samples(&options.out, &samples)?;
        Ok::<_, anyhow::Error>(samples)
    }
    .await;
    match measured {
        Ok(samples) => {
            let diagnostics = format!(
                "{} rounds of {} {} containers measured over {}",
                samples.samples_ms.len(),
                samples.containers,
                samples.execution_type,
                options.transport
            );
            am.finish(pb::FinalApplicationStatusProto::AppSucceeded, &diagnostics)
                .await
        }
        Err(err) => {
            let diagnostics = format!("{err:#}");
            if let Err(finish) = am
                .finish(pb::FinalApplicationStatusProto::AppFailed, &diagnostics)
                .await
            {
                tracing::warn!("unregistering as FAILED failed too: {finish:#}");
            }
            Err(err)
        }
    }
}

/// The warm-up round and the measured ones.
async fn measure_rounds(
    am: &mut impl AmRmCalls,
    options: &AllocateAmOptions,
) -> anyhow::Result<AllocateAmSamples> {
    let execution_type = options.execution_type.to_proto();
    let mut warmup_ms = 0.0;
    let mut samples_ms = Vec::with_capacity(options.rounds);
    for round in 0..=options.rounds {
        if round > 0 {
            tokio::time::sleep(ROUND_PAUSE).await;
        }
        let taken = one_round(am, round, options.containers, execution_type).await?;
        if round == 0 {
            warmup_ms = millis(taken);
        } else {
            samples_ms.push(millis(taken));
        }
    }
    Ok(AllocateAmSamples {
        execution_type: execution_type.as_str_name().to_owned(),
        containers: options.containers,
        warmup_ms,
        samples_ms,
    })
}

/// Asks for `containers` containers of `execution_type`, heartbeats until they are all in
/// hand, and returns how long that took; then hands them back with one more allocate, outside
/// the measured time, so that no round's timing includes the previous round's releases (the
/// RM commits those before it answers).
async fn one_round(
    am: &mut impl AmRmCalls,
    round: usize,
    containers: u32,
    execution_type: pb::ExecutionTypeProto,
) -> anyhow::Result<Duration> {
    am.add_container_request(container_ask(containers, execution_type));
    let wanted = usize::try_from(containers).unwrap_or(usize::MAX);
    let started = Instant::now();
    let mut in_hand = Vec::with_capacity(wanted);
    loop {
        let outcome = am
            .allocate(0.5)
            .await
            .with_context(|| format!("round {round}: allocate"))?;
        anyhow::ensure!(
            !outcome.shutdown_requested,
            "round {round}: the RM told the ApplicationMaster to shut down"
        );
        for container in outcome.allocated {
            anyhow::ensure!(
                container.execution_type() == execution_type,
                "round {round}: asked for {} containers, got {:?} as {}",
                execution_type.as_str_name(),
                container.id,
                container.execution_type().as_str_name()
            );
            if let Some(id) = container.id {
                in_hand.push(id);
            }
        }
        if in_hand.len() >= wanted {
            break;
        }
        anyhow::ensure!(
            started.elapsed() < ROUND_LIMIT,
            "round {round}: {} of {wanted} {} containers in hand after {ROUND_LIMIT:?}",
            in_hand.len(),
            execution_type.as_str_name()
        );
        tokio::time::sleep(POLL_PAUSE).await;
    }
    let taken = started.elapsed();
    for id in in_hand {
        am.release_assigned_container(id);
    }
    am.allocate(0.5)
        .await
        .with_context(|| format!("round {round}: handing the containers back"))?;
    Ok(taken)
}

/// The ask of one round: `containers` containers of 1 GB and 1 vcore anywhere, of
/// `execution_type`, which the scheduler must not change.
fn container_ask(
    containers: u32,
    execution_type: pb::ExecutionTypeProto,
) -> pb::ResourceRequestProto {
    pb::ResourceRequestProto {
        priority: Some(pb::PriorityProto { priority: 0 }),
        resource_name: "*".to_owned(),
        capability: Some(pb::ResourceProto {
            memory: CONTAINER_MB,
            virtual_cores: 1,
            ..Default::default()
        }),
        num_containers: i32::try_from(containers).unwrap_or(i32::MAX),
        execution_type_request: Some(pb::ExecutionTypeRequestProto {
            execution_type: execution_type as i32,
            enforce_execution_type: true,
        }),
        ..Default::default()
    }
}

/// Writes `samples` to `out` whole: into a sibling file first, then renamed over `out`, so
/// the driver never reads half a document.
fn write_samples(out: &Path, samples: &AllocateAmSamples) -> anyhow::Result<()> {
    let json = serde_json::to_string_pretty(samples)?;
    let partial = out.with_extension("partial");
    std::fs::write(&partial, json).with_context(|| format!("writing {}", partial.display()))?;
    std::fs::rename(&partial, out)
        .with_context(|| format!("renaming {} to {}", partial.display(), out.display()))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_ask_is_sized_typed_enforced_and_anywhere() {
        let ask = container_ask(10, pb::ExecutionTypeProto::Opportunistic);
        assert_eq!((ask.num_containers, ask.resource_name.as_str()), (10, "*"));
        let capability = ask.capability.unwrap();
        assert_eq!((capability.memory, capability.virtual_cores), (1024, 1));
        assert_eq!(
            ask.execution_type_request,
            Some(pb::ExecutionTypeRequestProto {
                execution_type: pb::ExecutionTypeProto::Opportunistic as i32,
                enforce_execution_type: true,
            })
        );
    }

    #[test]
    fn samples_are_written_whole_and_read_back() {
        let dir = tempfile::tempdir().unwrap();
        let out = dir.path().join("guaranteed.json");
        let samples = AllocateAmSamples {
            execution_type: "GUARANTEED".to_owned(),
            containers: 10,
            warmup_ms: 120.5,
            samples_ms: vec![30.25, 41.0],
        };
        write_samples(&out, &samples).unwrap();
        let read: AllocateAmSamples =
            serde_json::from_str(&std::fs::read_to_string(&out).unwrap()).unwrap();
        assert_eq!(read, samples);
        assert!(!out.with_extension("partial").exists());
    }
}
