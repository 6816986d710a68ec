//! The AMRMProxy against stand-ins of its surroundings: a NodeManager's node context, fake
//! ResourceManagers served over gRPC on 127.0.0.1, ApplicationMasters calling the proxy's own
//! gRPC service, and, for federation, two real ResourceManager clusters in this process.

mod default_interceptor;
mod distributed_relay;
mod distributed_scheduler;
mod fake_rm;
mod federation;
mod pipeline;
mod rm_cluster;
mod service;
mod support;
mod throttle;
mod token_manager;
