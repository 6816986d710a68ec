//! The token probe: an unmanaged ApplicationMaster inside the harness that keeps the tokens
//! the ResourceManager issued before a fault and presents them after it, so that
//! `tokens-survive-failover` rests on calls seen to pass or be refused.
//!
//! ```text
//!  GetNewApplication ─▶ SubmitApplication (unmanaged) ─▶ read the AMRMToken from the report
//!  ─▶ registerApplicationMaster
//!  until the workload stops:
//!    ask for one container ─▶ allocate every second until it comes
//!    ─▶ hold it unstarted for HOLD, still heartbeating with the same AMRMToken
//!    ─▶ StartContainers on its node (`exit 0`) with the container token and NM token that
//!       came before the hold
//!  ─▶ finishApplicationMaster SUCCEEDED
//! ```
//!
//! Every call is recorded in the history with when the token it presented was obtained. A call
//! the server turned down for its credentials is recorded as [`Outcome::Refused`]; every other
//! failure (a replica down, a node unreachable, no leader yet) as [`Outcome::Failed`].

use std::sync::Arc;
use std::time::Duration;

use anyhow::Context;
use yarn_client::{AmRmClient, Error as ClientError, NmClient, RmClientConfig};
use yarn_proto::ids::{ContainerId, NodeId};
use yarn_proto::pb;

use crate::history::{OperationKind, OperationResult, Outcome, PendingOperation};
use crate::workload::{Shared, failed, new_application, submit};

/// The probe's name in the history.
pub const PROCESS: &str = "token-probe";

/// How often the probe heartbeats, and polls the report for its token.
const HEARTBEAT: Duration = Duration::from_secs(1);

/// How long an allocated container is held before it is started: long enough that a fault
/// of the ci profile (about one every twelve seconds) often falls inside.
const HOLD: Duration = Duration::from_secs(10);

/// How many report polls the probe makes for its AMRMToken before it gives up.
const TOKEN_POLLS: u32 = 60;

/// How long the probe keeps trying to finish its application once the workload stops, before
/// it kills it: after a crash of every replica the group may take seconds to elect and to
/// accept the probe's registration again, and one failed finish must not end an application
/// the probe could still have finished.
const FINISH_PATIENCE: Duration = Duration::from_secs(30);

/// The probe container's size; the RM rounds it up to its minimum allocation.
const CONTAINER_MB: i64 = 128;

/// Runs the probe until the workload stops, then finishes its application. Records every call;
/// logs why it gave up if it could not get going (no application, no token).
pub(super) async fn run(shared: Arc<Shared>, rm: RmClientConfig) {
    if let Err(err) = probe(&shared, &rm).await {
        tracing::warn!("the token probe stopped: {err:#}");
    }
}

async fn probe(shared: &Shared, rm: &RmClientConfig) -> anyhow::Result<()> {
    let id = new_application(shared, PROCESS)
        .await
        .context("no application id before the workload stopped")?;
    let context = pb::ApplicationSubmissionContextProto {
        application_id: Some(id.into()),
        application_name: Some("chaos-token-probe".to_owned()),
        queue: Some("default".to_owned()),
        unmanaged_am: true,
        max_app_attempts: 1,
        ..Default::default()
    };
    anyhow::ensure!(
        submit(shared, PROCESS, context).await,
        "the unmanaged application {id} was never acknowledged"
    );
    let (token, token_ms) = match amrm_token(shared, id).await {
        Ok(found) => found,
        Err(err) => {
            kill(shared, id).await;
            return Err(err);
        }
    };
    let application_id = id.to_string();
    let mut session = Session {
        shared,
        am: AmRmClient::new(rm, token),
        nm: NmClient::from_config(rm),
        application_id,
        token_ms,
    };
    session.register().await;
    while !shared.stopping.is_cancelled() {
        session.one_container().await;
    }
    let deadline = tokio::time::Instant::now() + FINISH_PATIENCE;
    while !session.finish().await {
        if tokio::time::Instant::now() >= deadline {
            tracing::warn!(
                "the token probe could not finish its application {id} within \
                 {FINISH_PATIENCE:?}; killing it"
            );
            kill(shared, id).await;
            break;
        }
        tokio::time::sleep(HEARTBEAT).await;
    }
    Ok(())
}

/// Kills the probe's application when the probe cannot end it itself, so that no acknowledged
/// application is left for the run to wait on. The kill is recorded, so that the invariants
/// tell it from a failure of the application.
async fn kill(shared: &Shared, id: yarn_proto::ids::ApplicationId) {
    let pending = shared.recorder.invoke(
        PROCESS,
        OperationKind::KillOwnApplication {
            application_id: id.to_string(),
        },
    );
    let outcome = match shared.client.kill_application(id).await {
        Ok(_) => Outcome::Ok {
            result: OperationResult::Done,
        },
        Err(err) => {
            tracing::warn!("the token probe could not kill its application {id}: {err}");
            failed(&err)
        }
    };
    shared.recorder.complete(pending, outcome);
}

/// Polls the owner's report of `id` until it carries the attempt's AMRMToken; returns it with
/// when it was read.
async fn amrm_token(
    shared: &Shared,
    id: yarn_proto::ids::ApplicationId,
) -> anyhow::Result<(pb::TokenProto, u64)> {
    for _ in 0..TOKEN_POLLS {
        if let Ok(report) = shared.client.get_application_report(id).await
            && let Some(token) = report.am_rm_token
        {
            return Ok((token, shared.recorder.now_ms()));
        }
        tokio::time::sleep(HEARTBEAT).await;
    }
    anyhow::bail!("{id}'s report carried no AMRMToken after {TOKEN_POLLS} polls")
}

/// The registered probe and the tokens it holds.
struct Session<'a> {
    shared: &'a Shared,
    am: AmRmClient,
    nm: NmClient,
    application_id: String,
    /// When the AMRMToken the client presents was obtained.
    token_ms: u64,
}

impl Session<'_> {
    /// Registers, asking again every heartbeat until the RM answers or the workload stops.
    async fn register(&mut self) {
        while !self.shared.stopping.is_cancelled() {
            let (pending, before) = self.invoke("register");
            let result = self.am.register("", 0, "").await.map(drop);
            if self.complete(pending, &before, result) {
                return;
            }
            tokio::time::sleep(HEARTBEAT).await;
        }
    }

    /// Asks for one container, holds it for [`HOLD`] and starts it.
    async fn one_container(&mut self) {
        self.am.add_container_request(pb::ResourceRequestProto {
            priority: Some(pb::PriorityProto { priority: 1 }),
            resource_name: "*".to_owned(),
            capability: Some(pb::ResourceProto {
                memory: CONTAINER_MB,
                virtual_cores: 1,
                ..Default::default()
            }),
            num_containers: 1,
            ..Default::default()
        });
        let mut held = None;
        while held.is_none() && !self.shared.stopping.is_cancelled() {
            tokio::time::sleep(HEARTBEAT).await;
            held = self.heartbeat().await;
        }
        let Some(container) = held else { return };
        let allocated_ms = self.shared.recorder.now_ms();
        let start_at = tokio::time::Instant::now() + HOLD;
        while tokio::time::Instant::now() < start_at && !self.shared.stopping.is_cancelled() {
            tokio::time::sleep(HEARTBEAT).await;
            if let Some(extra) = self.heartbeat().await
                && let Some(id) = extra.id
            {
                self.am.release_assigned_container(id);
            }
        }
        self.start(&container, allocated_ms).await;
    }

    /// One allocate; the first container it brought, any others released.
    async fn heartbeat(&mut self) -> Option<pb::ContainerProto> {
        let (pending, before) = self.invoke("allocate");
        let result = self.am.allocate(0.5).await;
        let allocated = match &result {
            Ok(outcome) => outcome.allocated.clone(),
            Err(_) => Vec::new(),
        };
        self.complete(pending, &before, result.map(drop));
        let mut allocated = allocated.into_iter();
        let first = allocated.next();
        for extra in allocated {
            if let Some(id) = extra.id {
                self.am.release_assigned_container(id);
            }
        }
        first
    }

    /// Starts `container`, allocated at `allocated_ms`, with the tokens that came with it.
    async fn start(&self, container: &pb::ContainerProto, allocated_ms: u64) {
        let (Some(id), Some(node)) = (container.id, container.node_id.clone()) else {
            tracing::warn!("the token probe got a container without an id or node: {container:?}");
            return;
        };
        let (Ok(id), Ok(node_id)) = (ContainerId::try_from(id), NodeId::try_from(node.clone()))
        else {
            tracing::warn!("the token probe got a container with an invalid id or node");
            return;
        };
        let pending = self.shared.recorder.invoke(
            PROCESS,
            OperationKind::ProbeStartContainer {
                container_id: id.to_string(),
                node_id: node_id.to_string(),
                token_ms: allocated_ms,
            },
        );
        let outcome = match self.am.nm_token(&node) {
            None => Outcome::Failed {
                error: format!("no NM token for {node_id} came with the allocation"),
            },
            Some(nm_token) => {
                let context = pb::ContainerLaunchContextProto {
                    commands: vec!["exit 0".to_owned()],
                    ..Default::default()
                };
                match self.nm.start_container(container, &nm_token, context).await {
                    Ok(()) => Outcome::Ok {
                        result: OperationResult::Done,
                    },
                    Err(err) => classify(&err),
                }
            }
        };
        self.shared.recorder.complete(pending, outcome);
    }

    /// Unregisters SUCCEEDED so that the application ends like the workload's; returns
    /// whether the RM confirmed it.
    async fn finish(&mut self) -> bool {
        let (pending, before) = self.invoke("finish");
        let result = self
            .am
            .finish(pb::FinalApplicationStatusProto::AppSucceeded, "", "")
            .await;
        self.complete(pending, &before, result)
    }

    /// Notes an ApplicationMasterProtocol call `rpc` presenting the AMRMToken held now, which
    /// it returns for [`complete`](Self::complete).
    fn invoke(&self, rpc: &str) -> (PendingOperation, pb::TokenProto) {
        let pending = self.shared.recorder.invoke(
            PROCESS,
            OperationKind::ProbeAmCall {
                rpc: rpc.to_owned(),
                application_id: self.application_id.clone(),
                token_ms: self.token_ms,
            },
        );
        (pending, self.am.amrm_token().clone())
    }

    /// Records how the call ended and returns whether it succeeded. A token the RM rolled
    /// and sent back replaced the one held `before`: its time is taken from now on.
    fn complete(
        &mut self,
        pending: PendingOperation,
        before: &pb::TokenProto,
        result: Result<(), ClientError>,
    ) -> bool {
        let outcome = match result {
            Ok(()) => Outcome::Ok {
                result: OperationResult::Done,
            },
            Err(err) => classify(&err),
        };
        let succeeded = outcome.is_ok();
        self.shared.recorder.complete(pending, outcome);
        if self.am.amrm_token() != before {
            self.token_ms = self.shared.recorder.now_ms();
        }
        succeeded
    }
}

/// A refusal of the credentials presented (the RM's UNAUTHENTICATED or PERMISSION_DENIED, a
/// node turning down a container or NM token) as [`Outcome::Refused`]; anything else as
/// [`Outcome::Failed`].
fn classify(err: &ClientError) -> Outcome {
    let code = err.status().map(tonic::Status::code);
    let refused = matches!(
        code,
        Some(tonic::Code::Unauthenticated | tonic::Code::PermissionDenied)
    ) || matches!(err, ClientError::ContainerRefused { message, .. }
            if message.to_ascii_lowercase().contains("token"));
    if refused {
        Outcome::Refused {
            error: err.to_string(),
        }
    } else {
        failed(err)
    }
}
