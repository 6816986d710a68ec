//! The NodeManager's web view: Hadoop's NodeManager REST API, read-only, on
//! `yarn.nodemanager.webapp.address`.
//!
//! ```text
//!  client ── HTTPS, client certificate from the cluster CA ──> yarn_web::WebServer (Incoming: handshake,
//!            (plain HTTP with yarn.tls.enabled=false;              deadline, identity;
//!             none, for reads, with anonymous reads allowed)       WebAccess: who may read)
//!                                                                   │
//!                                                            router (axum)
//!      /ws/v1/node, /ws/v1/node/info ──> NodeInfo::describe(NodeDescription)
//!      /metrics ──> NodeMetrics::render(reports, opportunistic status)  (Prometheus text)
//!      /node, /node/allContainers, /node/containerlogs/... ──> HTML pages (node_pages)
//!      /ws/v1/node/containers[/{id}] ──> ContainerManager::container_reports()
//!                                        + the log directory's file names
//!                                        ──> ContainerInfo::describe
//!      malformed id, unknown container, other paths ──> WebRefusal (RemoteException JSON)
//! ```
//!
//! Handlers only fetch; the JSON shapes are pure functions of what they fetch, unit-tested
//! field by field. Field names and types follow Hadoop's documentation; the documentation of
//! [`NodeInfo`] and [`ContainerInfo`] says what each field means in yarn-ha, including the
//! ones yarn-ha has no source for (health checks, build times, a container-log web page),
//! which are reported as fixed or empty values rather than made up.

mod container_info;
mod node_description;
mod node_info;
mod node_metrics;
mod node_pages;
mod node_web;
mod web_refusal;

pub use container_info::{ContainerInfo, ContainerList, ContainerResponse, ContainersResponse};
pub use node_description::NodeDescription;
pub use node_info::{NodeInfo, NodeInfoResponse};
pub use node_metrics::NodeMetrics;
pub use node_web::router;
pub use web_refusal::WebRefusal;
