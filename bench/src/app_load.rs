//! [`load_apps`]: the applications `yarn-ha bench rest` puts in the state, submitted over the
//! ApplicationClientProtocol as a client submits them.

use std::sync::Arc;
use std::time::{Duration, Instant};

use anyhow::Context;
use yarn_client::{AmRmClient, ApplicationFilter, RmClientConfig, YarnClient};
use yarn_proto::ids::ApplicationId;
use yarn_proto::pb;

use crate::am_fleet::amrm_token;
use crate::bounded_tasks::run_bounded;

/// One application in this many is made RUNNING (its AM registers); the others stay
/// ACCEPTED. At 10,000 applications that is 200 RUNNING, twice the filtered list's limit.
pub const RUNNING_EVERY: usize = 50;

/// The name every benchmark application carries.
pub const APPLICATION_NAME: &str = "bench-rest";

/// Calls in flight at once while loading.
const IN_FLIGHT: usize = 64;

/// How long the scheduler may take to admit every submission, and how often it is asked.
const ADMIT_WAIT: Duration = Duration::from_secs(120);
const ADMIT_POLL: Duration = Duration::from_millis(200);

/// The applications loaded, in id order.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct LoadedApps {
    /// Every application.
    pub(crate) all: Vec<ApplicationId>,
    /// The RUNNING ones: every [`RUNNING_EVERY`]th, from the first.
    pub(crate) running: Vec<ApplicationId>,
}

/// Submits `count` applications to the `default` queue as `rm`'s user, waits until the
/// scheduler admitted them all, then registers the unmanaged AM of every
/// [`RUNNING_EVERY`]th, which makes it RUNNING.
///
/// The applications are unmanaged (their AM is not a container): an ACCEPTED one waits for
/// its AM to register and asks the scheduler for nothing, and a RUNNING one asks for no
/// containers, so the loaded cluster is idle and the REST calls are all it serves. The
/// registered AMs send no heartbeats afterwards; the cluster's AM expiry must outlast the run.
///
/// # Errors
///
/// A refused call, or submissions not all admitted within two minutes.
pub(crate) async fn load_apps(rm: &RmClientConfig, count: usize) -> anyhow::Result<LoadedApps> {
    let client = Arc::new(YarnClient::new(rm));
    let mut all = run_bounded(0..count, IN_FLIGHT, |_| submit(client.clone())).await?;
    all.sort_unstable();
    wait_admitted(&client).await?;
    let running: Vec<ApplicationId> = all.iter().copied().step_by(RUNNING_EVERY).collect();
    run_bounded(running.clone(), IN_FLIGHT, |id| {
        let (client, rm) = (client.clone(), rm.clone());
        async move {
            let token = amrm_token(&client, id).await?;
            AmRmClient::new(&rm, token)
                .register(APPLICATION_NAME, 0, "")
                .await
                .with_context(|| format!("registering the AM of {id}"))?;
            Ok(())
        }
    })
    .await?;
    Ok(LoadedApps { all, running })
}

/// Reserves an id and submits an unmanaged application under it.
async fn submit(client: Arc<YarnClient>) -> anyhow::Result<ApplicationId> {
    let id = client
        .get_new_application()
        .await
        .context("reserving an application id")?
        .application_id;
    client
        .submit_application(pb::ApplicationSubmissionContextProto {
            application_id: Some(id.into()),
            application_name: Some(APPLICATION_NAME.to_owned()),
            queue: Some("default".to_owned()),
            unmanaged_am: true,
            resource: Some(pb::ResourceProto {
                memory: 1024,
                virtual_cores: 1,
                ..Default::default()
            }),
            application_type: Some("YARN".to_owned()),
            ..Default::default()
        })
        .await
        .with_context(|| format!("submitting {id}"))?;
    Ok(id)
}

/// Waits until no application is SUBMITTED any more, the scheduler's verdicts all committed.
async fn wait_admitted(client: &YarnClient) -> anyhow::Result<()> {
    let submitted = ApplicationFilter {
        states: vec![pb::YarnApplicationStateProto::Submitted],
        limit: Some(1),
        ..ApplicationFilter::default()
    };
    let deadline = Instant::now() + ADMIT_WAIT;
    loop {
        let waiting = client
            .get_applications(&submitted)
            .await
            .context("listing the applications not admitted yet")?;
        if waiting.is_empty() {
            return Ok(());
        }
        anyhow::ensure!(
            Instant::now() < deadline,
            "the scheduler had not admitted every application after {ADMIT_WAIT:?}"
        );
        tokio::time::sleep(ADMIT_POLL).await;
    }
}
