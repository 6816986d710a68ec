//! Where calls go.

use std::future::Future;

use bytes::Bytes;

use crate::{Call, CallError};

/// Serves the calls of every connection: routes a call by protocol and method to an operation
/// and answers with the encoded response message, or with a [`CallError`] that becomes a
/// Hadoop exception in the client.
///
/// Calls of one connection run concurrently, and their answers go out in the order they
/// finish: Hadoop's client matches answers to calls by call id.
///
/// A dispatcher answers a protocol it does not serve with [`CallError::NoSuchProtocol`] and a
/// method it does not know with [`CallError::NoSuchMethod`]; the connection stays open.
/// A call whose future panics is answered with an ERROR `RpcServerException`; the connection
/// stays open too.
///
/// Cancellation: the future is dropped, at any await point, when the server shuts down or the
/// connection fails. A call whose client simply closes the connection runs to its end.
pub trait Dispatcher: Send + Sync + 'static {
    /// Serves one call.
    fn call(&self, call: Call) -> impl Future<Output = Result<Bytes, CallError>> + Send;
}
