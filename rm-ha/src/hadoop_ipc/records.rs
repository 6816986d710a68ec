//! Writing an operation's answer in Hadoop's encoding, for every dispatcher.

use bytes::Bytes;
use yarn_hadoop_records::HadoopRecord;
use yarn_ipc::CallError;

use crate::operations::RmError;

/// The operation's answer in Hadoop's encoding, or its error as a Hadoop exception.
pub(super) fn answer<R: HadoopRecord>(result: Result<R, RmError>) -> Result<Bytes, CallError> {
    Ok(result?.to_hadoop())
}
