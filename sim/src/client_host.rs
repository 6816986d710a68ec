//! [`ClientHost`]: the user of a simulated cluster, submitting applications and waiting for
//! them with the real YARN client.

use std::collections::BTreeMap;
use std::sync::Arc;
use std::time::Duration;

use tokio::task::JoinSet;
use yarn_client::{RmClientConfig, YarnClient};
use yarn_proto::ids::ApplicationId;
use yarn_proto::pb;
use yarn_security::hadoop_credentials::Credentials;

use crate::application_masters::{DSHELL_AM, PROGRAM_ENV, TASK_MEMORY_MB};
use crate::history::History;

/// The pause before a call that failed for good (every failover spent) is made again: the
/// client outlives any fault, as a user retrying would.
const RETRY_PAUSE: Duration = Duration::from_millis(500);

/// How often a submitted application's report is asked for.
const POLL_INTERVAL: Duration = Duration::from_millis(200);

/// The size of each AM container: twice a task's.
const AM_MEMORY_MB: i64 = 2 * TASK_MEMORY_MB;

/// Submits `applications` distributed shell applications, one every `submit_every`, each
/// through the real [`YarnClient`] with failover, and records each final report in the
/// history. Every call that fails for good is made again after [`RETRY_PAUSE`]: a resent
/// submission of a committed id changes nothing.
#[derive(Clone)]
pub(crate) struct ClientHost {
    /// The replicas, dialed over the simulated network.
    pub(crate) client: RmClientConfig,
    pub(crate) history: History,
    pub(crate) applications: usize,
    pub(crate) submit_every: Duration,
}

impl ClientHost {
    /// Runs until every application has ended.
    pub(crate) async fn run(self) -> turmoil::Result {
        let client = Arc::new(YarnClient::new(&self.client));
        let mut waits = JoinSet::new();
        for _ in 0..self.applications {
            let id = self.new_application(&client).await;
            self.submit(&client, id).await;
            self.history.record(
                turmoil::sim_elapsed().unwrap_or_default(),
                format!("client submitted {id}"),
            );
            waits.spawn(wait(Arc::clone(&client), id, self.history.clone()));
            tokio::time::sleep(self.submit_every).await;
        }
        while waits.join_next().await.is_some() {}
        Ok(())
    }

    async fn new_application(&self, client: &YarnClient) -> ApplicationId {
        loop {
            match client.get_new_application().await {
                Ok(new) => return new.application_id,
                Err(err) => self.gave_up("getNewApplication", &err).await,
            }
        }
    }

    async fn submit(&self, client: &YarnClient, id: ApplicationId) {
        while let Err(err) = client.submit_application(context(id)).await {
            self.gave_up(&format!("submitApplication of {id}"), &err)
                .await;
        }
    }

    async fn gave_up(&self, call: &str, err: &yarn_client::Error) {
        self.history.record(
            turmoil::sim_elapsed().unwrap_or_default(),
            format!("client: {call} failed, trying again: {err}"),
        );
        tokio::time::sleep(RETRY_PAUSE).await;
    }
}

/// Waits for `id`'s final report, and records it.
async fn wait(client: Arc<YarnClient>, id: ApplicationId, history: History) {
    let report = loop {
        // The client outlives the run: the harness judges what ended by when.
        let deadline = tokio::time::Instant::now() + Duration::from_secs(3600);
        match client
            .wait_for_final_report(id, POLL_INTERVAL, deadline)
            .await
        {
            Ok(report) => break report,
            Err(err) => {
                history.record(
                    turmoil::sim_elapsed().unwrap_or_default(),
                    format!("client: waiting for {id} failed, trying again: {err}"),
                );
                tokio::time::sleep(RETRY_PAUSE).await;
            }
        }
    };
    history.application_ended(
        turmoil::sim_elapsed().unwrap_or_default(),
        &id.to_string(),
        report.yarn_application_state().as_str_name(),
        report.final_application_status().as_str_name(),
        &report.diagnostics,
    );
}

/// A distributed shell application whose AM container runs the simulation's ApplicationMaster.
fn context(id: ApplicationId) -> pb::ApplicationSubmissionContextProto {
    pb::ApplicationSubmissionContextProto {
        application_id: Some(id.into()),
        application_name: Some("simulated dshell".to_owned()),
        queue: Some("default".to_owned()),
        am_container_spec: Some(pb::ContainerLaunchContextProto {
            environment: BTreeMap::from([(PROGRAM_ENV.to_owned(), DSHELL_AM.to_owned())]),
            commands: vec!["simulated ApplicationMaster".to_owned()],
            tokens: Credentials::new().encode(),
            ..Default::default()
        }),
        resource: Some(pb::ResourceProto {
            memory: AM_MEMORY_MB,
            virtual_cores: 1,
            ..Default::default()
        }),
        application_type: Some("YARN".to_owned()),
        ..Default::default()
    }
}
