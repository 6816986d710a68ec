//! [`HadoopAmRmClient`]: the ApplicationMaster of `bench allocate` on Hadoop IPC.

use anyhow::Context;
use bytes::Bytes;
use yarn_client::{
    AllocateOutcome, AmRmSession, DEFAULT_CALL_TIMEOUT, DEFAULT_FINISH_ATTEMPTS,
    DEFAULT_FINISH_PAUSE, NmTokenCache, RmClientConfig,
};
use yarn_hadoop_records::HadoopRecord;
use yarn_ipc::yarn_protocol::APPLICATION_MASTER_PROTOCOL;
use yarn_ipc::{ClientAuth, ClientError, IpcClient};
use yarn_proto::pb;

use crate::am_rm_calls::AmRmCalls;

/// An ApplicationMaster's client of `ApplicationMasterProtocolPB` over Hadoop IPC, as
/// Hadoop's AMRMClient talks to a ResourceManager: one connection to the scheduler address
/// of the leader, authenticated with SASL TOKEN by the attempt's AMRMToken; each request
/// encoded and each answer decoded in Hadoop's encoding with [`HadoopRecord`]; the allocate
/// bookkeeping is yarn-client's [`AmRmSession`], the same as the gRPC client's.
///
/// Unlike the gRPC client it does not fail over once registered: a call that fails fails the
/// run (the benchmark measures one leader's answers anyway). Every call is bounded by
/// [`DEFAULT_CALL_TIMEOUT`].
pub(crate) struct HadoopAmRmClient {
    ipc: IpcClient,
    session: AmRmSession,
}

impl HadoopAmRmClient {
    /// Connects to the scheduler address of each ResourceManager of `config` in turn, with
    /// `amrm_token`, and registers (host `host`, no RPC port, no tracking URL) with the first
    /// that leads: the others refuse with `StandbyException`, in the SASL exchange or the
    /// register call.
    ///
    /// # Errors
    ///
    /// When no ResourceManager accepted the registration; the message lists each one's
    /// refusal.
    pub(crate) async fn register(
        config: &RmClientConfig,
        amrm_token: pb::TokenProto,
        host: &str,
    ) -> anyhow::Result<Self> {
        let auth = ClientAuth::Token {
            identifier: Bytes::from(amrm_token.identifier.clone()),
            password: Bytes::from(amrm_token.password.clone()),
        };
        let request = pb::RegisterApplicationMasterRequestProto {
            host: host.to_owned(),
            rpc_port: 0,
            tracking_url: String::new(),
        };
        let mut refusals = Vec::new();
        for member in &config.ha.members {
            let address = member.scheduler.to_string();
            let registered = async {
                let mut ipc = bounded(IpcClient::connect(
                    address.as_str(),
                    APPLICATION_MASTER_PROTOCOL,
                    &auth,
                ))
                .await?;
                let answer =
                    bounded(ipc.call("registerApplicationMaster", &request.to_hadoop())).await?;
                Ok::<_, ClientError>((ipc, answer))
            }
            .await;
            match registered {
                Ok((ipc, answer)) => {
                    let response = pb::RegisterApplicationMasterResponseProto::from_hadoop(&answer)
                        .context("decoding the registerApplicationMaster answer")?;
                    let mut session = AmRmSession::new(amrm_token, NmTokenCache::new());
                    session.registered(&response);
                    tracing::info!(
                        "registered over Hadoop IPC with {} at {address}",
                        member.rm_id
                    );
                    return Ok(HadoopAmRmClient { ipc, session });
                }
                Err(err) => refusals.push(format!("{} at {address}: {err}", member.rm_id)),
            }
        }
        anyhow::bail!(
            "no ResourceManager registered the ApplicationMaster over Hadoop IPC: {}",
            refusals.join("; ")
        )
    }

    /// One call of `method` with `request`, its answer decoded as `R`.
    async fn call<R: HadoopRecord>(
        &mut self,
        method: &'static str,
        request: &impl HadoopRecord,
    ) -> anyhow::Result<R> {
        let answer = bounded(self.ipc.call(method, &request.to_hadoop()))
            .await
            .with_context(|| format!("{method} over Hadoop IPC"))?;
        R::from_hadoop(&answer).with_context(|| format!("decoding the {method} answer"))
    }
}

impl AmRmCalls for HadoopAmRmClient {
    fn add_container_request(&mut self, request: pb::ResourceRequestProto) {
        self.session.add_container_request(request);
    }

    fn release_assigned_container(&mut self, container_id: pb::ContainerIdProto) {
        self.session.release_assigned_container(container_id);
    }

    async fn allocate(&mut self, progress: f32) -> anyhow::Result<AllocateOutcome> {
        let request = self.session.next_request(progress);
        match self.call("allocate", &request).await {
            Ok(response) => Ok(self.session.on_response(response)),
            Err(err) => {
                // Only the server's ERROR answer proves it did not apply the request.
                let refused = err
                    .downcast_ref::<ClientError>()
                    .is_some_and(|err| matches!(err, ClientError::Remote { fatal: false, .. }));
                if refused {
                    self.session.refused();
                }
                Err(err)
            }
        }
    }

    /// Asks as yarn-client's `AmRmClient::finish` does by default: up to
    /// [`DEFAULT_FINISH_ATTEMPTS`] times, [`DEFAULT_FINISH_PAUSE`] apart, until the RM says the
    /// unregistration is committed.
    async fn finish(
        &mut self,
        status: pb::FinalApplicationStatusProto,
        diagnostics: &str,
    ) -> anyhow::Result<()> {
        let request = pb::FinishApplicationMasterRequestProto {
            diagnostics: diagnostics.to_owned(),
            tracking_url: String::new(),
            final_application_status: status as i32,
        };
        for _ in 0..DEFAULT_FINISH_ATTEMPTS {
            let response: pb::FinishApplicationMasterResponseProto =
                self.call("finishApplicationMaster", &request).await?;
            if response.is_unregistered {
                return Ok(());
            }
            tokio::time::sleep(DEFAULT_FINISH_PAUSE).await;
        }
        anyhow::bail!(
            "the RM did not confirm the unregistration in {DEFAULT_FINISH_ATTEMPTS} calls"
        )
    }
}

/// `call` bounded by [`DEFAULT_CALL_TIMEOUT`]; running out is an I/O timeout (and leaves the
/// connection broken, as a dropped call does).
async fn bounded<T>(call: impl Future<Output = Result<T, ClientError>>) -> Result<T, ClientError> {
    tokio::time::timeout(DEFAULT_CALL_TIMEOUT, call)
        .await
        .unwrap_or_else(|_| {
            Err(ClientError::Io {
                during: "waiting for an answer",
                source: std::io::Error::new(
                    std::io::ErrorKind::TimedOut,
                    format!("no answer within {DEFAULT_CALL_TIMEOUT:?}"),
                ),
            })
        })
}
