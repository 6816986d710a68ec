//! [`ContainerManagerDispatcher`]: ContainerManagementProtocolPB over Hadoop IPC on the
//! NodeManager's address, for Hadoop's NMClient.

use std::sync::Arc;

use bytes::Bytes;
use yarn_hadoop_records::{HadoopRecord, request_of as request};
use yarn_ipc::yarn_protocol::CONTAINER_MANAGEMENT_PROTOCOL;
use yarn_ipc::{
    AuthPolicy, Call, CallError, Dispatcher, ExceptionClass, SaslRefusal, TokenSasl, TokenSecret,
    TokenSecrets,
};
use yarn_proto::pb;
use yarn_proto::token_metadata::PresentedToken;
use yarn_security::TokenKind;

use super::ContainerManager;

/// The same shell as the gRPC [`ContainerManagerService`](super::ContainerManagerService) over
/// the same [`ContainerManager`]: the caller's NM token, proven in the connection's SASL
/// DIGEST-MD5 exchange, decides which application's containers each call may touch, and every
/// other problem is a per-container failure in the answer.
pub struct ContainerManagerDispatcher {
    manager: Arc<ContainerManager>,
}

impl ContainerManagerDispatcher {
    /// The dispatcher over `manager`.
    pub fn new(manager: Arc<ContainerManager>) -> Self {
        ContainerManagerDispatcher { manager }
    }

    /// How callers authenticate: with an NM token over SASL, never by a claimed name.
    pub fn auth(manager: Arc<ContainerManager>) -> AuthPolicy {
        AuthPolicy::new(
            vec![Arc::new(TokenSasl::new(Arc::new(NmTokenSecrets {
                manager,
            })))],
            false,
        )
    }

    /// The NM token the connection proved, as the checks of the gRPC path read it: the
    /// identifier with the password this node computes for it, which the caller proved it
    /// holds.
    fn nm_token(&self, call: &Call) -> Result<PresentedToken, CallError> {
        let identifier = call.caller.proven_token().ok_or_else(|| {
            CallError::token_required("ContainerManagementProtocol", "an NM token for this node")
        })?;
        let (_, password) = self
            .manager
            .nm_token_password(identifier)
            .map_err(|message| CallError::Application {
                class: ExceptionClass::InvalidToken,
                message,
            })?;
        Ok(PresentedToken::Token(pb::TokenProto {
            identifier: identifier.to_vec(),
            password,
            kind: TokenKind::Nm.to_string(),
            service: String::new(),
        }))
    }
}

impl Dispatcher for ContainerManagerDispatcher {
    async fn call(&self, call: Call) -> Result<Bytes, CallError> {
        if call.protocol != CONTAINER_MANAGEMENT_PROTOCOL {
            return Err(CallError::NoSuchProtocol {
                protocol: call.protocol,
            });
        }
        let nm_token = self.nm_token(&call)?;
        let manager = &self.manager;
        let answer = match call.method.as_str() {
            "startContainers" => {
                let request: pb::StartContainersRequestProto = request(&call)?;
                manager
                    .start_containers(request.start_container_requests, &nm_token)
                    .await
                    .to_hadoop()
            }
            "stopContainers" => {
                let request: pb::StopContainersRequestProto = request(&call)?;
                manager
                    .stop_containers(request.container_ids, &nm_token)
                    .to_hadoop()
            }
            "getContainerStatuses" => {
                let request: pb::GetContainerStatusesRequestProto = request(&call)?;
                manager
                    .container_statuses(request.container_ids, &nm_token)
                    .to_hadoop()
            }
            "updateContainer" => {
                let request: pb::ContainerUpdateRequestProto = request(&call)?;
                manager
                    .update_containers(request.update_container_tokens, &nm_token)
                    .await
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

/// The NM-token passwords this node's SASL exchange checks callers against.
struct NmTokenSecrets {
    manager: Arc<ContainerManager>,
}

impl TokenSecrets for NmTokenSecrets {
    fn lookup(&self, identifier: &[u8]) -> Result<TokenSecret, SaslRefusal> {
        let (user, password) = self
            .manager
            .nm_token_password(identifier)
            .map_err(|message| SaslRefusal {
                class: ExceptionClass::InvalidToken,
                message,
            })?;
        Ok(TokenSecret {
            password: Bytes::from(password),
            user,
        })
    }
}
