//! The ApplicationMaster's clients (AMRM and NM) against test doubles of the RM scheduler
//! service and of a NodeManager's container manager, over real mutual TLS.
//!
//! One test binary (with these modules) to save link time.

mod am_rm;
mod fake_nm;
mod fake_scheduler;
mod nm;
mod support;
