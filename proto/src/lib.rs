//! The yarn-ha wire protocol.
//!
//! This crate holds every `.proto` file of yarn-ha, the tonic clients and servers generated from
//! them at build time by protox (a pure-Rust protobuf compiler, so no system `protoc`), YARN's
//! identifiers as domain types with Hadoop's string forms, and the conversions between those
//! types and their protobuf messages.
//!
//! It depends on no other workspace crate, and every daemon and client crate depends on it:
//! anything here must stay free of daemon logic.
//!
//! # Layout of `proto/`
//!
//! All files are `syntax = "proto3"; package yarn;`, so everything generated lands in [`pb`].
//!
//! ```text
//! yarn_protos.proto                        core records: ids, resources, containers, apps, nodes
//! yarn_security_token.proto                token identifiers and MasterKeyProto
//! yarn_server_common_protos.proto          NM/RM records: node status, opportunistic load
//! application_client_protocol.proto        ApplicationClientProtocol: clients to the RM
//! application_master_protocol.proto        ApplicationMasterProtocol: AMs to the RM
//! distributed_scheduling_am_protocol.proto DistributedSchedulingAMProtocol: AMRMProxy to the RM
//! resource_tracker.proto                   ResourceTracker: NM registration and heartbeats
//! container_management_protocol.proto      ContainerManagementProtocol: AMs to an NM
//! rm_admin_protocol.proto                  ResourceManagerAdministrationProtocol
//! raft_service.proto                       RaftService: openraft messages between RM replicas
//! ```
//!
//! Records follow YARN's messages field by field and keep YARN's field numbers; numbers 100 and
//! up mark yarn-ha additions. Enums keep YARN's values, with a `*_UNSPECIFIED` zero where YARN
//! has none.
//!
//! # Retries and dedupe keys
//!
//! A client, AM or NM may resend any RPC to a new leader after a failover without knowing whether
//! the first attempt took effect. Every RPC that changes state therefore names its dedupe key in a
//! comment right above the `rpc` line and says what a duplicate returns: for example the
//! heartbeat's `NodeStatusProto.response_id` (a duplicate gets the last response again, a stale
//! one gets RESYNC), the allocate `response_id`, and the submission's application id (a repeated
//! submission succeeds and changes nothing). Read-only RPCs are marked as such. Server
//! implementations must honour these comments; they are the protocol's contract.
//!
//! # Identifiers
//!
//! [`ids`] holds [`ApplicationId`](ids::ApplicationId),
//! [`ApplicationAttemptId`](ids::ApplicationAttemptId), [`ContainerId`](ids::ContainerId) (with
//! the RM epoch in its high bits) and [`NodeId`](ids::NodeId). Each prints exactly as Hadoop does
//! and parses that form back; each converts to and from its `pb` message. Every failure is a
//! [`ProtoError`].
//!
//! [`ResourceKey`] makes a `ResourceProto` comparable, so that asks and containers can be keyed
//! by size.

mod convert;
mod error;
pub mod expiry_time;
pub mod ids;
mod leader_hint;
mod resource;
mod resource_key;

pub use error::{IdKind, IdProblem, ProtoError};
pub use leader_hint::{LEADER_HINT_HEADER, LeaderHint, NOT_LEADER_HEADER};
pub use resource::Resource;
pub use resource_key::ResourceKey;

/// The resource name of an ask that may be placed on any node (YARN's `ResourceRequest.ANY`).
pub const ANY: &str = "*";
pub mod token_metadata;

/// Generated protobuf messages and tonic clients and servers, package `yarn`.
#[allow(clippy::all, missing_docs)]
pub mod pb {
    tonic::include_proto!("yarn");
}
