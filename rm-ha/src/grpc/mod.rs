//! The gRPC front door of a replica: one thin adapter per YARN protocol, each authenticating
//! the caller (certificate role; for ApplicationMasters, also the AMRMToken), calling the
//! [`operations`](crate::operations) and answering with the result or with the status its
//! [`RmError`](crate::operations::RmError) maps to in [`status`], the one mapping.

mod admin_service;
mod application_master_service;
mod client_service;
mod distributed_scheduling_service;
mod resource_tracker_service;
mod status;

pub(crate) use admin_service::AdminService;
pub(crate) use application_master_service::ApplicationMasterService;
pub(crate) use client_service::ClientService;
pub(crate) use resource_tracker_service::ResourceTrackerService;
