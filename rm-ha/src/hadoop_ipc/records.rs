//! Reading a call's request and writing its answer in Hadoop's encoding, for every dispatcher.

use bytes::Bytes;
use yarn_hadoop_records::HadoopRecord;
use yarn_ipc::{Call, CallError};

use crate::operations::RmError;

/// The call's request message, as yarn-ha's record.
///
/// # Errors
///
/// [`CallError::MalformedRequest`] naming the method and what did not parse.
pub(super) fn request<R: HadoopRecord>(call: &Call) -> Result<R, CallError> {
    R::from_hadoop(&call.request).map_err(|err| CallError::MalformedRequest {
        method: call.method.clone(),
        reason: err.to_string(),
    })
}

/// The operation's answer in Hadoop's encoding, or its error as a Hadoop exception.
pub(super) fn answer<R: HadoopRecord>(result: Result<R, RmError>) -> Result<Bytes, CallError> {
    Ok(result?.to_hadoop())
}
