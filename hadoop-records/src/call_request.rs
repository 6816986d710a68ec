//! Reading a Hadoop IPC call's request as yarn-ha's record, for every daemon's dispatchers.

use yarn_ipc::{Call, CallError};

use crate::{HadoopRecord, RecordError};

/// The request message of `call`, as yarn-ha's record.
///
/// # Errors
///
/// A message that does not read is refused by the RPC layer (see [`malformed`]).
pub fn request_of<R: HadoopRecord>(call: &Call) -> Result<R, CallError> {
    R::from_hadoop(&call.request).map_err(|err| malformed(call, &err))
}

/// The refusal of a call whose request did not read: [`CallError::MalformedRequest`], naming
/// the method and what was wrong with which message or field.
pub fn malformed(call: &Call, err: &RecordError) -> CallError {
    CallError::MalformedRequest {
        method: call.method.clone(),
        reason: err.to_string(),
    }
}
