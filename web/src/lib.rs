//! The web endpoint every yarn-ha daemon serves: [`WebServer`] speaks HTTPS over the cluster's
//! mutual TLS (plain HTTP with `yarn.tls.enabled=false`), hands each handler the caller's
//! identity ([`WebCaller`]), and stops within a bounded grace; refusals are answered in
//! Hadoop's `RemoteException` shape ([`RemoteExceptionResponse`]), so Hadoop's REST clients
//! read the reason where they expect it. Web UI pages are drawn server-side in one frame
//! ([`Page`]) with tables sorted by their query ([`Sorting`]), and need no script.
//!
//! May depend on `security` only; the NodeManager and the ResourceManager build their routes
//! on it.

mod framework_refusals;
mod hadoop_exception;
mod page;
mod remote_exception;
mod sorting;
mod web_server;

pub use framework_refusals::FrameworkRefusals;
pub use hadoop_exception::HadoopException;
pub use page::{NavLink, NavSection, Page, usage_bar};
pub use remote_exception::{RemoteException, RemoteExceptionResponse};
pub use sorting::{BadQueryParameter, Sorting};
pub use web_server::{ServeError, WEB_SHUTDOWN_GRACE, WebCaller, WebListener, WebServer};
