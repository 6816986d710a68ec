//! Three in-process replicas over the gRPC Raft transport with mutual TLS: replication,
//! failover, and the transport's refusal of callers that are not who they claim to be.

mod authorization;
mod failover;
mod support;
