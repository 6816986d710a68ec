//! [`AmFleet`]: the ApplicationMasters of `bench scheduler`'s full-path run, one unmanaged AM
//! per application, each asking through the ApplicationMasterProtocol over mutual TLS.

use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::{Duration, Instant};

use anyhow::Context;
use tokio::sync::watch;
use tokio::task::JoinSet;
use yarn_client::{AmRmClient, RmClientConfig, YarnClient};
use yarn_proto::ids::ApplicationId;
use yarn_proto::pb;

/// How often each AM heartbeats while it waits for containers. Hadoop's MapReduce AM
/// heartbeats every second; a quarter of that keeps the measured time close to the commits
/// without 1,000 AMs saturating the two cores the cluster shares with them.
pub const AM_HEARTBEAT: Duration = Duration::from_millis(250);

/// How many report polls an AM makes for its AMRMToken before the run fails.
const TOKEN_POLLS: u32 = 200;
/// The pause between those polls.
const TOKEN_POLL: Duration = Duration::from_millis(50);

/// Registered ApplicationMasters whose asks the leader holds, heartbeating until told to stop.
pub struct AmFleet {
    tasks: JoinSet<anyhow::Result<()>>,
    received: Arc<AtomicUsize>,
    last_receipt: watch::Receiver<Option<Instant>>,
    stop: watch::Sender<bool>,
}

impl AmFleet {
    /// For each of `applications` (unmanaged, owned by the user of `rm`, admitted): reads its
    /// AMRMToken from the owner's report, registers, and sends one allocate asking for
    /// `containers` containers of 1 GB and 1 vcore. Returns once every AM's asks reached the
    /// leader; the AMs then heartbeat every [`AM_HEARTBEAT`] until [`stop`](Self::stop).
    ///
    /// # Errors
    ///
    /// An application whose report carries no token, or a refused register or allocate.
    pub async fn start(
        rm: &RmClientConfig,
        applications: &[ApplicationId],
        containers: u32,
    ) -> anyhow::Result<Self> {
        let client = Arc::new(YarnClient::new(rm));
        let received = Arc::new(AtomicUsize::new(0));
        let (receipts, last_receipt) = watch::channel(None);
        let receipts = Arc::new(receipts);
        let (stop, stopped) = watch::channel(false);
        let mut asked = JoinSet::new();
        for &application in applications {
            let client = client.clone();
            let rm = rm.clone();
            asked.spawn(async move {
                let token = amrm_token(&client, application).await?;
                let mut am = AmRmClient::new(&rm, token);
                am.register("bench-am", 0, "")
                    .await
                    .with_context(|| format!("registering the AM of {application}"))?;
                am.add_container_request(ask(containers));
                let first = am
                    .allocate(0.0)
                    .await
                    .with_context(|| format!("the first allocate of {application}"))?;
                Ok::<_, anyhow::Error>((application, am, first.allocated.len()))
            });
        }
        let mut tasks = JoinSet::new();
        while let Some(joined) = asked.join_next().await {
            let (application, am, already) = joined.context("an AM task")??;
            received.fetch_add(already, Ordering::SeqCst);
            tasks.spawn(heartbeat(
                application,
                am,
                received.clone(),
                receipts.clone(),
                stopped.clone(),
            ));
        }
        Ok(Self {
            tasks,
            received,
            last_receipt,
            stop,
        })
    }

    /// Containers the AMs have received so far, each once.
    pub fn received(&self) -> usize {
        self.received.load(Ordering::SeqCst)
    }

    /// When an AM last received a container.
    pub fn last_receipt(&self) -> Option<Instant> {
        *self.last_receipt.borrow()
    }

    /// Stops every AM's heartbeats and waits for them.
    ///
    /// # Errors
    ///
    /// The first AM whose heartbeat failed.
    pub async fn stop(mut self) -> anyhow::Result<()> {
        // Every task holds a receiver until it ends, so the send fails only if all ended.
        let _ = self.stop.send(true);
        let mut outcome = Ok(());
        while let Some(joined) = self.tasks.join_next().await {
            let result = joined.context("an AM task").and_then(|result| result);
            if outcome.is_ok() {
                outcome = result;
            }
        }
        outcome
    }
}

async fn heartbeat(
    application: ApplicationId,
    mut am: AmRmClient,
    received: Arc<AtomicUsize>,
    receipts: Arc<watch::Sender<Option<Instant>>>,
    mut stopped: watch::Receiver<bool>,
) -> anyhow::Result<()> {
    loop {
        tokio::select! {
            _ = stopped.changed() => return Ok(()),
            () = tokio::time::sleep(AM_HEARTBEAT) => {}
        }
        let outcome = am
            .allocate(0.5)
            .await
            .with_context(|| format!("a heartbeat of {application}'s AM"))?;
        if !outcome.allocated.is_empty() {
            received.fetch_add(outcome.allocated.len(), Ordering::SeqCst);
            receipts.send_replace(Some(Instant::now()));
        }
    }
}

/// The AMRMToken of unmanaged application `id`, read from its report as its owner (`client`'s
/// user) once the application is admitted, polling up to [`TOKEN_POLLS`] times.
///
/// # Errors
///
/// A report that cannot be read, or none carrying the token after the polls.
pub(crate) async fn amrm_token(
    client: &YarnClient,
    id: ApplicationId,
) -> anyhow::Result<pb::TokenProto> {
    for _ in 0..TOKEN_POLLS {
        let report = client
            .get_application_report(id)
            .await
            .with_context(|| format!("the report of {id}"))?;
        if let Some(token) = report.am_rm_token {
            return Ok(token);
        }
        tokio::time::sleep(TOKEN_POLL).await;
    }
    anyhow::bail!("{id}'s report carried no AMRMToken after {TOKEN_POLLS} polls")
}

/// The bench's ask in protobuf form: `containers` containers of 1 GB and 1 vcore anywhere,
/// as [`bench_ask`](super::scheduler_bench::bench_ask) asks the core directly.
fn ask(containers: u32) -> pb::ResourceRequestProto {
    pb::ResourceRequestProto {
        priority: Some(pb::PriorityProto { priority: 1 }),
        resource_name: "*".to_owned(),
        capability: Some(pb::ResourceProto {
            memory: 1024,
            virtual_cores: 1,
            ..Default::default()
        }),
        num_containers: i32::try_from(containers).unwrap_or(i32::MAX),
        relax_locality: Some(true),
        ..Default::default()
    }
}
