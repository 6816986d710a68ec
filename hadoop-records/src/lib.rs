//! YARN's records as Hadoop's own clients put them on the wire, and their conversion to and
//! from yarn-ha's records.
//!
//! yarn-ha's protocol records (`yarn_proto::pb`) follow Hadoop's field numbers wherever they
//! model Hadoop's field, so most of a Hadoop message reads as yarn-ha's record directly. A
//! [`HadoopRecord`] is one request or response of the protocols yarn-ha serves to Hadoop
//! clients over Hadoop IPC (ApplicationClientProtocol, ApplicationMasterProtocol,
//! ContainerManagementProtocol), with the two conversions the IPC servers use.

#[allow(clippy::all, missing_docs)]
pub mod hadoop;
mod record_error;

use bytes::Bytes;
use prost::Message;
use yarn_proto::pb;

pub use record_error::RecordError;

/// A yarn-ha record that Hadoop clients send or receive.
pub trait HadoopRecord: Message + Default + Sized {
    /// Reads the message a Hadoop client encoded.
    ///
    /// # Errors
    ///
    /// [`RecordError`] when the bytes are not that message.
    fn from_hadoop(bytes: &[u8]) -> Result<Self, RecordError> {
        Self::decode(bytes).map_err(|source| RecordError::Malformed {
            message: std::any::type_name::<Self>()
                .rsplit("::")
                .next()
                .unwrap_or("message"),
            source,
        })
    }

    /// Encodes the record as the Hadoop message a Hadoop client reads.
    fn to_hadoop(&self) -> Bytes {
        Bytes::from(self.encode_to_vec())
    }
}

macro_rules! records {
    ($($record:ident),* $(,)?) => {
        $(impl HadoopRecord for pb::$record {})*
    };
}

records!(
    // ApplicationClientProtocol
    GetNewApplicationRequestProto,
    GetNewApplicationResponseProto,
    SubmitApplicationRequestProto,
    SubmitApplicationResponseProto,
    GetApplicationReportRequestProto,
    GetApplicationReportResponseProto,
    GetApplicationsRequestProto,
    GetApplicationsResponseProto,
    KillApplicationRequestProto,
    KillApplicationResponseProto,
    GetClusterMetricsRequestProto,
    GetClusterMetricsResponseProto,
    GetClusterNodesRequestProto,
    GetClusterNodesResponseProto,
    GetQueueInfoRequestProto,
    GetQueueInfoResponseProto,
    GetQueueUserAclsInfoRequestProto,
    GetQueueUserAclsInfoResponseProto,
    MoveApplicationAcrossQueuesRequestProto,
    MoveApplicationAcrossQueuesResponseProto,
    GetApplicationAttemptsRequestProto,
    GetApplicationAttemptsResponseProto,
    GetContainersRequestProto,
    GetContainersResponseProto,
    FailApplicationAttemptRequestProto,
    FailApplicationAttemptResponseProto,
    UpdateApplicationPriorityRequestProto,
    UpdateApplicationPriorityResponseProto,
    // ApplicationMasterProtocol
    RegisterApplicationMasterRequestProto,
    RegisterApplicationMasterResponseProto,
    AllocateRequestProto,
    AllocateResponseProto,
    FinishApplicationMasterRequestProto,
    FinishApplicationMasterResponseProto,
    // ContainerManagementProtocol
    StartContainersRequestProto,
    StartContainersResponseProto,
    StopContainersRequestProto,
    StopContainersResponseProto,
    GetContainerStatusesRequestProto,
    GetContainerStatusesResponseProto,
    ContainerUpdateRequestProto,
    ContainerUpdateResponseProto,
);
