//! [`AmrmProxyHost`]: the AMRMProxy as the NodeManager runs it.

use std::sync::Arc;

use prost::Message;
use yarn_amrmproxy::AmrmProxy;
use yarn_conf::HostPort;
use yarn_proto::ids::ApplicationAttemptId;
use yarn_proto::pb;
use yarn_proto::token_metadata::AMRM_PROXY_ADDRESS_ENV;
use yarn_security::TokenKind;

use crate::container_manager::{ContainerManager, ContainerRefusal};
use crate::state_store::ContainerRecord;

/// This node's [`AmrmProxy`] and the address its AMs reach it at.
///
/// Guarantees:
/// - an AM container is started only once the proxy serves its attempt, with credentials in
///   which the RM's AMRMToken is replaced by the proxy's local one: the state store and the
///   container's token file never hold the RM token;
/// - the AM's environment names the proxy in `YARN_AMRM_PROXY_ADDRESS`, so its AMRM client
///   talks to the proxy and not to the RMs;
/// - an attempt stays served while any of its containers on this node is alive (its AM
///   container among them), so a NodeManager restart in the middle of a job resumes its chain.
#[derive(Debug)]
pub struct AmrmProxyHost {
    proxy: Arc<AmrmProxy>,
    advertised: HostPort,
}

impl AmrmProxyHost {
    /// The host of `proxy`, which AMs on this node reach at `advertised`.
    pub fn new(proxy: Arc<AmrmProxy>, advertised: HostPort) -> Self {
        Self { proxy, advertised }
    }

    /// The proxy.
    pub fn proxy(&self) -> &Arc<AmrmProxy> {
        &self.proxy
    }

    /// Where AMs on this node reach the proxy.
    pub fn advertised(&self) -> &HostPort {
        &self.advertised
    }

    /// Puts the AM container of `record` behind the proxy: the proxy starts serving `attempt`
    /// with the RM AMRMToken from the container's credentials, and `record` gets the local token
    /// in its place and the proxy's address in its environment.
    ///
    /// # Errors
    ///
    /// [`ContainerRefusal::AmrmProxy`] when the credentials do not decode or hold no AMRMToken,
    /// or the proxy refuses the attempt.
    pub(crate) async fn prepare_am_launch(
        &self,
        attempt: ApplicationAttemptId,
        record: &mut ContainerRecord,
    ) -> Result<(), ContainerRefusal> {
        let container_id = record.container_id;
        let refusal = |reason: String| ContainerRefusal::AmrmProxy {
            container_id,
            reason,
        };
        let mut credentials = pb::CredentialsProto::decode(record.tokens.as_slice())
            .map_err(|err| refusal(format!("its credentials do not decode: {err}")))?;
        let amrm = TokenKind::AmRm.name();
        let position = credentials
            .tokens
            .iter()
            .position(|token| token.kind == amrm)
            .ok_or_else(|| refusal(format!("its credentials hold no {amrm} token")))?;
        let rm_token = credentials.tokens.remove(position);
        let local = self
            .proxy
            .init_application(attempt, &record.user, rm_token)
            .await
            .map_err(|err| refusal(err.to_string()))?;
        credentials.tokens.insert(position, local);
        record.tokens = credentials.encode_to_vec();
        record.environment.insert(
            AMRM_PROXY_ADDRESS_ENV.to_owned(),
            self.advertised.to_string(),
        );
        tracing::info!(%container_id, %attempt, proxy = %self.advertised, "AM container put behind the AMRMProxy");
        Ok(())
    }

    /// Stops serving every attempt none of whose containers is alive on this node any more:
    /// its AM has exited (or was never recovered), so no one will call for it again.
    pub(crate) async fn stop_finished(&self, manager: &ContainerManager) {
        let reports = manager.container_reports();
        for attempt in self.proxy.attempts() {
            let alive = reports.iter().any(|report| {
                report.container_id.application_attempt_id() == attempt
                    && report.state != pb::ContainerStateProto::CComplete
            });
            if alive {
                continue;
            }
            if let Err(err) = self.proxy.stop_application(attempt.application_id).await {
                tracing::warn!(%attempt, %err, "the AMRMProxy could not forget a finished attempt");
            }
        }
    }
}
