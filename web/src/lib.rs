//! The web endpoint every yarn-ha daemon serves: [`WebServer`] speaks HTTPS over the cluster's
//! mutual TLS (plain HTTP with `yarn.tls.enabled=false`), names the user of each request
//! under the daemon's [`WebAccess`] before any handler runs ([`RemoteUser`], or an
//! [`AccessRefusal`]), hands handlers the connection's caller ([`WebCaller`]), and stops within
//! a bounded grace; refusals are answered in Hadoop's `RemoteException` shape
//! ([`RemoteExceptionResponse`]), so Hadoop's REST clients read the reason where they expect
//! it, the framework's own refusals included ([`FrameworkRefusals`]). Web UI pages are drawn
//! server-side in one frame ([`Page`]) with tables sorted by their query ([`Sorting`]), and
//! need no script.
//!
//! ```text
//!  client ──▶ Incoming (TLS handshake: a certificate from the cluster CA, or none when
//!             │         anonymous reads are allowed) ──▶ WebCaller (the connection's caller)
//!             ▼
//!  WebAccess::remote_user(caller, method, user.name) ──refused──▶ 401/400 RemoteException
//!             │ RemoteUser (certificate, user.name without TLS, or dr.who for a read)
//!             ▼
//!  the daemon's routes
//! ```
//!
//! May depend on `conf` and `security` only; the NodeManager and the ResourceManager build
//! their routes on it.

mod access_refusal;
mod declared_body_limit;
mod framework_refusals;
mod hadoop_exception;
mod page;
mod remote_exception;
mod remote_user;
mod sorting;
mod web_access;
mod web_server;

pub use access_refusal::AccessRefusal;
pub use declared_body_limit::DeclaredBodyLimit;
pub use framework_refusals::FrameworkRefusals;
pub use hadoop_exception::HadoopException;
pub use page::{NavLink, NavSection, Page, usage_bar};
pub use remote_exception::{RemoteException, RemoteExceptionResponse};
pub use remote_user::RemoteUser;
pub use sorting::{BadQueryParameter, Sorting};
pub use web_access::WebAccess;
pub use web_server::{ServeError, WEB_SHUTDOWN_GRACE, WebCaller, WebListener, WebServer};
