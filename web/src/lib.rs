//! The web endpoint every yarn-ha daemon serves: [`WebServer`] speaks HTTPS over the cluster's
//! mutual TLS (plain HTTP with `yarn.tls.enabled=false`), hands each handler the caller's
//! identity ([`WebCaller`]), and stops within a bounded grace; refusals are answered in
//! Hadoop's `RemoteException` shape ([`RemoteExceptionResponse`]), so Hadoop's REST clients
//! read the reason where they expect it.
//!
//! May depend on `security` only; the NodeManager and the ResourceManager build their routes
//! on it.

mod hadoop_exception;
mod remote_exception;
mod web_server;

pub use hadoop_exception::HadoopException;
pub use remote_exception::{RemoteException, RemoteExceptionResponse};
pub use web_server::{ServeError, WEB_SHUTDOWN_GRACE, WebCaller, WebListener, WebServer};
