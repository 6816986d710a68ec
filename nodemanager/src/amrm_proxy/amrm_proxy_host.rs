//! [`AmrmProxyHost`]: the AMRMProxy as the NodeManager runs it.

use std::sync::Arc;

use yarn_amrmproxy::AmrmProxy;
use yarn_conf::HostPort;
use yarn_proto::ids::ApplicationAttemptId;
use yarn_proto::pb;
use yarn_proto::token_metadata::AMRM_PROXY_ADDRESS_ENV;
use yarn_security::TokenKind;
use yarn_security::hadoop_credentials::{Credentials, CredentialsToken};

use crate::container_manager::{ContainerManager, ContainerRefusal};
use crate::state_store::ContainerRecord;

/// This node's [`AmrmProxy`] and the address its AMs reach it at.
///
/// Guarantees:
/// - an AM container is started only once the proxy serves its attempt, with credentials in
///   which the RM's AMRMToken is replaced by the proxy's local one, under the same alias, in
///   a Hadoop credentials file (`HDTS` version 0, whichever version came in): the state store
///   and the container's token file never hold the RM token;
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
    /// [`ContainerRefusal::AmrmProxy`] when the credentials are not a readable Hadoop
    /// credentials file or hold no AMRMToken, or the proxy refuses the attempt.
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
        let (mut credentials, rm_token) = rm_amrm_token(&record.tokens).map_err(refusal)?;
        let local = self
            .proxy
            .init_application(attempt, &record.user, rm_token.clone().into())
            .await
            .map_err(|err| refusal(err.to_string()))?;
        // Filed under the RM token's alias, so it takes that token's place in the file.
        credentials.add_token(CredentialsToken::from_proto(rm_token.alias, local));
        record.tokens = credentials.encode();
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

/// The AM's credentials read from its launch context's `tokens`, and the RM's AMRMToken in
/// them (the first of its kind; the RM puts exactly one there).
///
/// # Errors
///
/// Why not, as a refusal's reason: the bytes are not a readable Hadoop credentials file, or
/// they hold no AMRMToken.
fn rm_amrm_token(tokens: &[u8]) -> Result<(Credentials, CredentialsToken), String> {
    let credentials =
        Credentials::decode(tokens).map_err(|err| format!("its credentials: {err}"))?;
    let amrm = TokenKind::AmRm.name();
    let rm_token = credentials
        .tokens_of_kind(amrm)
        .next()
        .cloned()
        .ok_or_else(|| format!("its credentials hold no {amrm} token"))?;
    Ok((credentials, rm_token))
}

#[cfg(test)]
mod tests {
    use yarn_security::hadoop_credentials::SerializedFormat;

    use super::*;

    fn token(alias: &str, kind: &str) -> CredentialsToken {
        CredentialsToken {
            alias: alias.to_owned(),
            identifier: vec![1],
            password: vec![2],
            kind: kind.to_owned(),
            service: "svc".to_owned(),
        }
    }

    #[test]
    fn the_rm_token_is_found_by_kind_in_either_version() {
        let mut credentials = Credentials::new();
        credentials.add_token(token("nn", "HDFS_DELEGATION_TOKEN"));
        credentials.add_token(token("", "YARN_AM_RM_TOKEN"));
        for format in [SerializedFormat::Writable, SerializedFormat::Protobuf] {
            let (read, rm_token) = rm_amrm_token(&credentials.encode_as(format)).unwrap();
            assert_eq!(read, credentials);
            assert_eq!(rm_token, token("", "YARN_AM_RM_TOKEN"));
        }
    }

    #[test]
    fn unreadable_credentials_or_no_amrm_token_are_reasons_to_refuse() {
        let garbage = rm_amrm_token(&[0x0A, 0x02, 0x01, 0x02]).unwrap_err();
        assert!(
            garbage.starts_with("its credentials: not a readable Hadoop credentials file"),
            "{garbage}"
        );
        let mut credentials = Credentials::new();
        credentials.add_token(token("nn", "HDFS_DELEGATION_TOKEN"));
        assert_eq!(
            rm_amrm_token(&credentials.encode()).unwrap_err(),
            "its credentials hold no YARN_AM_RM_TOKEN token"
        );
    }
}
