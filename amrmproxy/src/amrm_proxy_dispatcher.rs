//! [`AmrmProxyDispatcher`]: the ApplicationMasterProtocolPB the AMRMProxy serves to Hadoop
//! ApplicationMasters over Hadoop IPC, beside its gRPC [`AmrmProxyService`](crate::AmrmProxyService).

use std::sync::Arc;

use bytes::Bytes;
use yarn_hadoop_records::{HadoopRecord, request_of};
use yarn_ipc::yarn_protocol::APPLICATION_MASTER_PROTOCOL;
use yarn_ipc::{
    AuthPolicy, Call, CallError, Dispatcher, SaslRefusal, TokenSasl, TokenSecret, TokenSecrets,
};
use yarn_proto::ids::ApplicationAttemptId;
use yarn_proto::pb;

use crate::AmrmProxy;

/// The Hadoop IPC face of an [`AmrmProxy`]: an AM proves its local AMRMToken (the one the
/// NodeManager put in its credentials file) in the connection's SASL DIGEST-MD5 exchange, and
/// each call then runs through the attempt's interceptor chain, exactly as a gRPC call does.
pub struct AmrmProxyDispatcher {
    proxy: Arc<AmrmProxy>,
}

impl AmrmProxyDispatcher {
    /// The dispatcher over `proxy`.
    pub fn new(proxy: Arc<AmrmProxy>) -> Self {
        AmrmProxyDispatcher { proxy }
    }

    /// How AMs authenticate: with their local AMRMToken over SASL, never by a claimed name.
    pub fn auth(proxy: Arc<AmrmProxy>) -> AuthPolicy {
        AuthPolicy::new(
            vec![Arc::new(TokenSasl::new(Arc::new(LocalTokenSecrets {
                proxy,
            })))],
            false,
        )
    }

    /// The attempt and key id of the local token the connection proved, checked again now:
    /// the attempt may have finished since the connection was opened (its key may have been
    /// retired too, which does not matter: the AM gets its new token in the next answer).
    fn caller(&self, call: &Call) -> Result<(ApplicationAttemptId, i32), CallError> {
        let identifier = call.caller.proven_token().ok_or_else(|| {
            CallError::token_required("ApplicationMasterProtocol", "the attempt's AMRMToken")
        })?;
        Ok(self.proxy.proven_attempt(identifier)?)
    }
}

impl Dispatcher for AmrmProxyDispatcher {
    async fn call(&self, call: Call) -> Result<Bytes, CallError> {
        if call.protocol != APPLICATION_MASTER_PROTOCOL {
            return Err(CallError::NoSuchProtocol {
                protocol: call.protocol,
            });
        }
        let (attempt, key_id) = self.caller(&call)?;
        let proxy = &self.proxy;
        let answer = match call.method.as_str() {
            "registerApplicationMaster" => {
                let body: pb::RegisterApplicationMasterRequestProto = request_of(&call)?;
                proxy
                    .with_chain(attempt, |chain| Box::pin(chain.register(body)))
                    .await?
                    .to_hadoop()
            }
            "allocate" => {
                let body: pb::AllocateRequestProto = request_of(&call)?;
                let mut response = proxy
                    .with_chain(attempt, |chain| Box::pin(chain.allocate(body)))
                    .await?;
                // As on gRPC: an RM token never reaches the AM; a rolled local one does.
                response.am_rm_token = proxy.rolled_token(attempt, key_id);
                response.to_hadoop()
            }
            "finishApplicationMaster" => {
                let body: pb::FinishApplicationMasterRequestProto = request_of(&call)?;
                proxy
                    .with_chain(attempt, |chain| Box::pin(chain.finish(body)))
                    .await?
                    .to_hadoop()
            }
            _ => {
                return Err(CallError::NoSuchMethod {
                    protocol: call.protocol,
                    method: call.method,
                });
            }
        };
        Ok(answer)
    }
}

/// The local AMRMToken passwords the proxy's SASL exchange checks AMs against.
struct LocalTokenSecrets {
    proxy: Arc<AmrmProxy>,
}

impl TokenSecrets for LocalTokenSecrets {
    fn lookup(&self, identifier: &[u8]) -> Result<TokenSecret, SaslRefusal> {
        let (attempt, _, password) = self
            .proxy
            .local_token_password(identifier)
            .map_err(|err| SaslRefusal::from(CallError::from(err)))?;
        Ok(TokenSecret {
            password: Bytes::from(password),
            user: attempt.to_string(),
        })
    }
}
