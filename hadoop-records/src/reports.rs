//! The two report methods of ApplicationClientProtocol yarn-ha has no rpc for
//! (getApplicationAttemptReport, getContainerReport): Hadoop's request read as the id it names,
//! and yarn-ha's report written as Hadoop's response, for a dispatcher that serves them from
//! yarn-ha's attempt and container lists.

use bytes::Bytes;
use prost::Message;
use yarn_proto::pb;

use crate::RecordError;
use crate::convert::Convert;
use crate::hadoop::yarn as hadoop;
use crate::transcode::short_name;

fn decode<M: Message + Default>(bytes: &[u8]) -> Result<M, RecordError> {
    M::decode(bytes).map_err(|source| RecordError::Malformed {
        message: short_name::<M>(),
        source,
    })
}

/// The attempt a `GetApplicationAttemptReportRequestProto` asks about.
///
/// # Errors
///
/// [`RecordError`] when the bytes are not that request or it names no attempt.
pub fn attempt_report_request(bytes: &[u8]) -> Result<pb::ApplicationAttemptIdProto, RecordError> {
    let request: hadoop::GetApplicationAttemptReportRequestProto = decode(bytes)?;
    let id = request.application_attempt_id.ok_or(RecordError::Missing {
        field: "GetApplicationAttemptReportRequestProto.application_attempt_id",
    })?;
    Convert::from_hadoop(id)
}

/// `GetApplicationAttemptReportResponseProto` carrying `report`.
pub fn attempt_report_response(report: &pb::ApplicationAttemptReportProto) -> Bytes {
    let response = hadoop::GetApplicationAttemptReportResponseProto {
        application_attempt_report: Some(report.to_hadoop()),
    };
    Bytes::from(response.encode_to_vec())
}

/// The container a `GetContainerReportRequestProto` asks about.
///
/// # Errors
///
/// [`RecordError`] when the bytes are not that request or it names no container.
pub fn container_report_request(bytes: &[u8]) -> Result<pb::ContainerIdProto, RecordError> {
    let request: hadoop::GetContainerReportRequestProto = decode(bytes)?;
    let id = request.container_id.ok_or(RecordError::Missing {
        field: "GetContainerReportRequestProto.container_id",
    })?;
    Convert::from_hadoop(id)
}

/// `GetContainerReportResponseProto` carrying `report`, converted as in
/// [`GetContainersResponseProto`](pb::GetContainersResponseProto) (a SCHEDULED container
/// reads as RUNNING).
pub fn container_report_response(report: &pb::ContainerReportProto) -> Bytes {
    let response = hadoop::GetContainerReportResponseProto {
        container_report: Some(report.to_hadoop()),
    };
    Bytes::from(response.encode_to_vec())
}
