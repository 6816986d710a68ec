//! A dispatcher for tests: one protocol with a handful of methods.

use std::sync::Arc;

use bytes::Bytes;
use tokio::sync::Semaphore;
use yarn_ipc::yarn_protocol::APPLICATION_CLIENT_PROTOCOL;
use yarn_ipc::{AuthMethod, Authentication, Call, CallError, Dispatcher, ExceptionClass};

/// Serves `ApplicationClientProtocolPB` with:
/// - `echo`: answers the request bytes;
/// - `whoami`: answers the caller's user name;
/// - `tokenIdentifier`: answers the identifier of the token that authenticated the caller;
/// - `slow`: waits for a permit the test adds to `release`, then answers `slow`;
/// - `standby`: fails with `StandbyException`;
/// - `badRequest`: fails as a request that does not parse;
/// - `panic`: panics, as a dispatcher with a bug would.
#[derive(Clone)]
pub struct TestDispatcher {
    pub release: Arc<Semaphore>,
}

impl Default for TestDispatcher {
    fn default() -> Self {
        TestDispatcher {
            release: Arc::new(Semaphore::new(0)),
        }
    }
}

impl Dispatcher for TestDispatcher {
    async fn call(&self, call: Call) -> Result<Bytes, CallError> {
        if call.protocol != APPLICATION_CLIENT_PROTOCOL {
            return Err(CallError::NoSuchProtocol {
                protocol: call.protocol,
            });
        }
        match call.method.as_str() {
            "echo" => Ok(call.request),
            "whoami" => Ok(Bytes::from(call.caller.user.clone().unwrap_or_default())),
            "tokenIdentifier" => match &call.caller.authentication {
                Authentication::Sasl {
                    method: AuthMethod::Token,
                    token_identifier: Some(identifier),
                } => Ok(identifier.clone()),
                other => Err(CallError::Application {
                    class: ExceptionClass::AccessControlException,
                    message: format!("not authenticated by a token: {other:?}"),
                }),
            },
            "slow" => {
                self.release.acquire().await.expect("never closed").forget();
                Ok(Bytes::from_static(b"slow"))
            }
            "standby" => Err(CallError::Application {
                class: ExceptionClass::StandbyException,
                message: "rm1 is in standby state".into(),
            }),
            "badRequest" => Err(CallError::MalformedRequest {
                method: call.method,
                reason: <yarn_ipc::pb::TokenProto as prost::Message>::decode(&[0x0a_u8][..])
                    .unwrap_err()
                    .to_string(),
            }),
            "panic" => panic!("a dispatcher bug, on purpose"),
            _ => Err(CallError::NoSuchMethod {
                protocol: call
                    .caller
                    .connection_protocol
                    .clone()
                    .unwrap_or(call.protocol),
                method: call.method,
            }),
        }
    }
}
