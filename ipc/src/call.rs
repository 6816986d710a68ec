//! One call for a dispatcher.

use std::sync::Arc;

use bytes::Bytes;

use crate::{CallTag, Caller};

/// A call the connection read and hands to the [`Dispatcher`](crate::Dispatcher).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Call {
    /// The call id, client id and retry count; with the client id, the call id names the call
    /// for a retry cache.
    pub tag: CallTag,
    /// The protocol declaring the method (`declaringClassProtocolName`), such as
    /// `org.apache.hadoop.yarn.api.ApplicationClientProtocolPB`.
    pub protocol: String,
    /// The method, such as `getNewApplication`.
    pub method: String,
    /// The protocol version the client was built against (1 for YARN's).
    pub client_protocol_version: u64,
    /// The request message, still encoded: the dispatcher decodes it as the method's request.
    pub request: Bytes,
    /// Who is calling; shared by every call of the connection.
    pub caller: Arc<Caller>,
}
