//! ApplicationClientProtocolPB over Hadoop IPC: a thin adapter onto [`ClientOperations`], as
//! the gRPC `ClientService` is.

use std::sync::Arc;

use bytes::Bytes;
use yarn_ipc::yarn_protocol::APPLICATION_CLIENT_PROTOCOL;
use yarn_ipc::{Authentication, Call, CallError, Dispatcher, ExceptionClass};
use yarn_security::{Caller, PeerIdentity, Role};

use yarn_hadoop_records::request_of as request;

use super::records::answer;
use super::single_reports;
use crate::operations::ClientOperations;

/// Serves Hadoop's YarnClient: each call runs as the user its connection established (under
/// SIMPLE, the name the client claims; the listener admits SIMPLE only when the operator
/// enabled it), with the same rights checks as every other front door.
pub(crate) struct ClientDispatcher {
    pub(crate) operations: Arc<ClientOperations>,
}

impl ClientDispatcher {
    /// The caller the operations see: a user of that name, as a user certificate would be.
    fn caller(call: &Call) -> Result<Caller, CallError> {
        let user = match (&call.caller.authentication, &call.caller.user) {
            (Authentication::Simple, Some(user)) if !user.is_empty() => user.clone(),
            (Authentication::Simple, _) => {
                return Err(CallError::Application {
                    class: ExceptionClass::AccessControlException,
                    message: "the connection context names no user".to_owned(),
                });
            }
            (Authentication::Sasl { method, .. }, _) => {
                return Err(CallError::Application {
                    class: ExceptionClass::AccessControlException,
                    message: format!(
                        "{} authentication does not admit ApplicationClientProtocol calls",
                        method.name()
                    ),
                });
            }
        };
        Ok(Caller::Peer(PeerIdentity {
            role: Role::User,
            name: user,
        }))
    }
}

impl Dispatcher for ClientDispatcher {
    async fn call(&self, call: Call) -> Result<Bytes, CallError> {
        if call.protocol != APPLICATION_CLIENT_PROTOCOL {
            return Err(CallError::NoSuchProtocol {
                protocol: call.protocol,
            });
        }
        let caller = Self::caller(&call)?;
        let operations = &self.operations;
        match call.method.as_str() {
            "getNewApplication" => answer(operations.get_new_application().await),
            "submitApplication" => answer(
                operations
                    .submit_application(&caller, request(&call)?)
                    .await,
            ),
            "getApplicationReport" => answer(
                operations
                    .get_application_report(&caller, request(&call)?)
                    .await,
            ),
            "getApplications" => {
                answer(operations.get_applications(&caller, request(&call)?).await)
            }
            "forceKillApplication" => answer(
                operations
                    .force_kill_application(&caller, request(&call)?)
                    .await,
            ),
            "getClusterMetrics" => {
                request::<yarn_proto::pb::GetClusterMetricsRequestProto>(&call)?;
                answer(operations.get_cluster_metrics().await)
            }
            "getClusterNodes" => answer(operations.get_cluster_nodes(request(&call)?).await),
            "getQueueInfo" => answer(operations.get_queue_info(request(&call)?).await),
            "getQueueUserAcls" => {
                request::<yarn_proto::pb::GetQueueUserAclsInfoRequestProto>(&call)?;
                answer(operations.get_queue_user_acls(&caller).await)
            }
            "moveApplicationAcrossQueues" => answer(
                operations
                    .move_application_across_queues(&caller, request(&call)?)
                    .await,
            ),
            "getApplicationAttempts" => answer(
                operations
                    .get_application_attempts(&caller, request(&call)?)
                    .await,
            ),
            "getApplicationAttemptReport" => {
                single_reports::attempt_report(operations, &caller, &call).await
            }
            "getContainerReport" => {
                single_reports::container_report(operations, &caller, &call).await
            }
            "getContainers" => answer(operations.get_containers(&caller, request(&call)?).await),
            "failApplicationAttempt" => answer(
                operations
                    .fail_application_attempt(&caller, request(&call)?)
                    .await,
            ),
            "updateApplicationPriority" => answer(
                operations
                    .update_application_priority(&caller, request(&call)?)
                    .await,
            ),
            "updateApplicationTimeouts" => answer(
                operations
                    .update_application_timeouts(&caller, request(&call)?)
                    .await,
            ),
            "getNewReservation" => {
                request::<yarn_proto::pb::GetNewReservationRequestProto>(&call)?;
                answer(operations.get_new_reservation().await)
            }
            "submitReservation" => answer(
                operations
                    .submit_reservation(&caller, request(&call)?)
                    .await,
            ),
            "updateReservation" => answer(
                operations
                    .update_reservation(&caller, request(&call)?)
                    .await,
            ),
            "deleteReservation" => answer(
                operations
                    .delete_reservation(&caller, request(&call)?)
                    .await,
            ),
            "listReservations" => {
                answer(operations.list_reservations(&caller, request(&call)?).await)
            }
            "getClusterNodeLabels" => {
                request::<yarn_proto::pb::GetClusterNodeLabelsRequestProto>(&call)?;
                answer(operations.get_cluster_node_labels().await)
            }
            "getNodeToLabels" => {
                request::<yarn_proto::pb::GetNodesToLabelsRequestProto>(&call)?;
                answer(operations.get_node_to_labels().await)
            }
            "getLabelsToNodes" => answer(operations.get_labels_to_nodes(request(&call)?).await),
            _ => Err(CallError::NoSuchMethod {
                protocol: call.protocol,
                method: call.method,
            }),
        }
    }
}
