//! The REST front door: Hadoop's ResourceManager REST API (`/ws/v1/cluster/...`) on every
//! replica's `yarn.resourcemanager.webapp.address`, over the cluster's mutual TLS
//! ([`yarn_web::WebServer`]).
//!
//! ```text
//!  client ── HTTPS, user certificate ──▶ WebServer ──▶ StandbyRedirect
//!      (plain HTTP + user.name without TLS;        │ leader: serve
//!       neither: reads only, as dr.who, when       │ standby: 307 to the leader's web address
//!       anonymous reads are allowed)               │          (/ws/v1/cluster/info answered)
//!                                                  ▼
//!                       RestApi handlers ──▶ ClientOperations (as gRPC's ClientService)
//!                                                  │ RmError
//!                                                  ▼
//!                          RestRefusal: HTTP status + RemoteException JSON (one mapping)
//! ```
//!
//! Handlers only call operations and shape their answers; the JSON shapes are pure functions
//! of the client protocol's reports, tested field by field against Hadoop's names.

mod activities_api;
mod activities_info;
mod app_attempt_info;
mod app_filter;
mod app_info;
mod app_statistics;
mod app_timeouts;
mod blocking_json;
mod cluster_info;
mod cluster_metrics_info;
mod container_info;
mod jaxb_json;
mod node_info;
mod node_labels_info;
mod reservation_api;
mod reservation_info;
mod rest_api;
mod rest_refusal;
mod sched_conf_info;
mod scheduler_info;
mod standby_redirect;
mod submission_context_info;
mod ui;
mod xml_negotiation;

pub(crate) use rest_api::RestApi;
pub(crate) use standby_redirect::StandbyRedirect;

/// A query's `(name, value)` pairs from string literals, for tests.
#[cfg(test)]
fn query(pairs: &[(&str, &str)]) -> Vec<(String, String)> {
    pairs
        .iter()
        .map(|(name, value)| ((*name).to_owned(), (*value).to_owned()))
        .collect()
}
