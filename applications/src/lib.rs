//! yarn-ha sample applications, as Hadoop keeps them in `hadoop-yarn-applications`: the
//! distributed shell ([`dshell`]) and the pi example ([`pi`]). Each is a client that submits the
//! application and waits for it, and an ApplicationMaster that the `yarn-ha` binary runs inside
//! the AM container; pi's maps are the binary again, in containers of their own.
//!
//! They are clients of the client library (`yarn-client`: `YarnClient`, `AmRmClient`,
//! `NmClient`) and depend on no daemon crate. [`Error`] is their one error type; it carries the
//! client library's errors unchanged in [`Error::Client`].
//!
//! What they guarantee: an ApplicationMaster survives ResourceManager failovers (the AMRM
//! client registers again and deduplicates containers), stops at once on `AM_SHUTDOWN`, gives
//! back containers it does not need, and reports every container's end in its final
//! diagnostics; a client kills an application that outlives its timeout. Text that users,
//! ApplicationMasters or servers chose is escaped before it reaches the terminal.

pub mod dshell;
mod error;
pub mod pi;

pub use error::Error;
