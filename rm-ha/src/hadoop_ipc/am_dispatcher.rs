//! ApplicationMasterProtocolPB over Hadoop IPC: a thin adapter onto [`AmOperations`], for
//! ApplicationMasters that proved their AMRMToken in the connection's SASL exchange.

use std::sync::Arc;

use bytes::Bytes;
use yarn_ipc::yarn_protocol::APPLICATION_MASTER_PROTOCOL;
use yarn_ipc::{Call, CallError, Dispatcher, SaslRefusal, TokenSecret, TokenSecrets};

use yarn_hadoop_records::request_of as request;

use super::records::answer;
use crate::operations::{AmCaller, AmOperations};

/// Serves Hadoop's AMRMClient: each call runs as the application attempt whose AMRMToken the
/// connection proved, checked again against this replica's leadership and state on every
/// call, as the gRPC service checks the token it is sent with each call.
pub(crate) struct AmDispatcher {
    pub(crate) operations: Arc<AmOperations>,
}

impl AmDispatcher {
    fn caller(&self, call: &Call) -> Result<AmCaller, CallError> {
        let identifier = call.caller.proven_token().ok_or_else(|| {
            CallError::token_required("ApplicationMasterProtocol", "the attempt's AMRMToken")
        })?;
        Ok(self.operations.authenticate_proven(identifier)?)
    }
}

impl Dispatcher for AmDispatcher {
    async fn call(&self, call: Call) -> Result<Bytes, CallError> {
        if call.protocol != APPLICATION_MASTER_PROTOCOL {
            return Err(CallError::NoSuchProtocol {
                protocol: call.protocol,
            });
        }
        let caller = self.caller(&call)?;
        let operations = &self.operations;
        match call.method.as_str() {
            "registerApplicationMaster" => {
                answer(operations.register(&caller, request(&call)?).await)
            }
            "allocate" => answer(operations.allocate(&caller, request(&call)?).await),
            "finishApplicationMaster" => answer(operations.finish(&caller, request(&call)?).await),
            _ => Err(CallError::NoSuchMethod {
                protocol: call.protocol,
                method: call.method,
            }),
        }
    }
}

/// The AMRMToken passwords the scheduler port's SASL exchange checks AMs against.
pub(crate) struct AmrmTokenSecrets {
    pub(crate) operations: Arc<AmOperations>,
}

impl TokenSecrets for AmrmTokenSecrets {
    fn lookup(&self, identifier: &[u8]) -> Result<TokenSecret, SaslRefusal> {
        let (user, password) = self
            .operations
            .amrm_secret(identifier)
            .map_err(|err| SaslRefusal::from(CallError::from(err)))?;
        Ok(TokenSecret {
            password: Bytes::from(password),
            user,
        })
    }
}
