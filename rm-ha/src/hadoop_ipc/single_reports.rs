//! getApplicationAttemptReport and getContainerReport, which Hadoop's clients call and yarn-ha's
//! gRPC protocol serves only as lists: each is the matching entry of its list, and a missing one
//! is YARN's `*NotFoundException` through the one error mapping.

use bytes::Bytes;
use yarn_hadoop_records::{
    attempt_report_request, attempt_report_response, container_report_request,
    container_report_response, malformed,
};
use yarn_ipc::{Call, CallError};
use yarn_proto::ids::{ApplicationAttemptId, ContainerId};
use yarn_proto::pb;
use yarn_security::Caller;

use crate::operations::{ClientOperations, RmError};

/// The report of the attempt the call names, with the rights checks of getApplicationAttempts.
pub(super) async fn attempt_report(
    operations: &ClientOperations,
    caller: &Caller,
    call: &Call,
) -> Result<Bytes, CallError> {
    let wanted = attempt_report_request(&call.request).map_err(|err| malformed(call, &err))?;
    let attempts = operations
        .get_application_attempts(
            caller,
            pb::GetApplicationAttemptsRequestProto {
                application_id: wanted.application_id,
            },
        )
        .await?;
    let report = attempts
        .application_attempts
        .iter()
        .find(|report| report.application_attempt_id.as_ref() == Some(&wanted))
        .ok_or_else(|| match ApplicationAttemptId::try_from(wanted) {
            Ok(id) => RmError::AttemptNotFound { id },
            Err(err) => RmError::invalid("application_attempt_id", err.to_string()),
        })?;
    Ok(attempt_report_response(report))
}

/// The report of the container the call names, with the rights checks of getContainers.
pub(super) async fn container_report(
    operations: &ClientOperations,
    caller: &Caller,
    call: &Call,
) -> Result<Bytes, CallError> {
    let wanted = container_report_request(&call.request).map_err(|err| malformed(call, &err))?;
    let containers = operations
        .get_containers(
            caller,
            pb::GetContainersRequestProto {
                application_attempt_id: wanted.app_attempt_id,
            },
        )
        .await?;
    let report = containers
        .containers
        .iter()
        .find(|report| {
            report
                .container_id
                .as_ref()
                .is_some_and(|id| id.id == wanted.id)
        })
        .ok_or_else(|| match ContainerId::try_from(wanted) {
            Ok(id) => RmError::ContainerNotFound { id },
            Err(err) => RmError::invalid("container_id", err.to_string()),
        })?;
    Ok(container_report_response(report))
}
