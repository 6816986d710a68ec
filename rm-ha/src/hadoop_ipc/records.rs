//! Reading a call's request and writing its answer in Hadoop's encoding, for every dispatcher.

use bytes::Bytes;
use yarn_hadoop_records::{HadoopRecord, RecordError};
use yarn_ipc::{Call, CallError};

use crate::operations::RmError;

/// The call's request message, as yarn-ha's record.
///
/// # Errors
///
/// [`CallError::MalformedRequest`] naming the method and what did not parse.
pub(super) fn request<R: HadoopRecord>(call: &Call) -> Result<R, CallError> {
    R::from_hadoop(&call.request).map_err(|err| malformed(call, &err))
}

/// The refusal of a call whose request did not read: the RPC layer's, naming the method.
pub(super) fn malformed(call: &Call, err: &RecordError) -> CallError {
    CallError::MalformedRequest {
        method: call.method.clone(),
        reason: err.to_string(),
    }
}

/// The operation's answer in Hadoop's encoding, or its error as a Hadoop exception.
pub(super) fn answer<R: HadoopRecord>(result: Result<R, RmError>) -> Result<Bytes, CallError> {
    Ok(result?.to_hadoop())
}
