//! [`StandbyRedirect`]: what a replica that does not lead does with a web request, as Hadoop's
//! standby ResourceManager does it.

use axum::extract::{Request, State};
use axum::http::{HeaderValue, StatusCode, header};
use axum::middleware::Next;
use axum::response::{IntoResponse, Response};

use super::rest_refusal::RestRefusal;
use crate::operations::{NotLeader, RmError};
use crate::replica::{LeaderGate, Serving};

/// The paths every replica answers itself, leader or not: Hadoop's standby answers
/// `/ws/v1/cluster/info` so that a client can probe each RM for its `haState`, and each
/// replica's own metrics are scraped from it.
const ANSWERED_BY_EVERY_REPLICA: [&str; 2] = ["/ws/v1/cluster/info", "/metrics"];

/// Where one request goes.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum Routing {
    /// This replica answers it.
    Serve,
    /// `307 Temporary Redirect` to the same path and query on the leader's web address.
    Redirect {
        /// The `Location`.
        location: String,
    },
    /// This replica knows no leader whose web address it can name: 503, ask again later.
    Unavailable(NotLeader),
}

/// The routing decision, pure: a leader serves everything; a standby serves the paths every
/// replica answers and redirects the rest to the leader it knows, or refuses them for now.
pub(crate) fn route(
    path: &str,
    query: Option<&str>,
    serving: &Serving,
    gate: &LeaderGate,
    scheme: &str,
) -> Routing {
    let Serving::NotLeader { leader } = serving else {
        return Routing::Serve;
    };
    if ANSWERED_BY_EVERY_REPLICA.contains(&path) {
        return Routing::Serve;
    }
    let refusal = gate.refusal(leader.as_deref());
    match &refusal.hint {
        // A replica that leads in Raft but has not begun its epoch names itself: sending the
        // client back to it would loop.
        Some(hint) if hint.rm_id == refusal.replica => Routing::Unavailable(refusal),
        Some(hint) => {
            let query = query.map(|query| format!("?{query}")).unwrap_or_default();
            Routing::Redirect {
                location: format!("{scheme}://{}{path}{query}", hint.address),
            }
        }
        None => Routing::Unavailable(refusal),
    }
}

/// The gate and scheme the redirect middleware routes with.
#[derive(Clone)]
pub(crate) struct StandbyRedirect {
    /// This replica's gate for the web service: its hints name leaders' web addresses.
    pub(crate) gate: LeaderGate,
    /// `https`, or `http` with `yarn.tls.enabled=false`.
    pub(crate) scheme: &'static str,
}

impl StandbyRedirect {
    /// The middleware: routes each request by [`route`] before any handler runs.
    pub(crate) async fn layer(
        State(redirect): State<StandbyRedirect>,
        request: Request,
        next: Next,
    ) -> Response {
        let uri = request.uri();
        let routing = route(
            uri.path(),
            uri.query(),
            &redirect.gate.serving(),
            &redirect.gate,
            redirect.scheme,
        );
        match routing {
            Routing::Serve => next.run(request).await,
            Routing::Redirect { location } => match HeaderValue::try_from(location) {
                Ok(location) => (
                    StatusCode::TEMPORARY_REDIRECT,
                    [(header::LOCATION, location)],
                )
                    .into_response(),
                // The address comes from the configuration and the path from a parsed URI, so
                // this cannot happen; refusing is the safe answer if it ever did.
                Err(_) => RestRefusal::from(RmError::internal(
                    "the leader's web address does not make a valid Location header",
                ))
                .into_response(),
            },
            Routing::Unavailable(refusal) => {
                RestRefusal::from(RmError::NotLeader(refusal)).into_response()
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use std::sync::Arc;

    use tokio::sync::watch;
    use yarn_conf::{Configuration, RmHaConfig};

    use super::*;
    use crate::nodes::NodeTracker;
    use crate::replica::Leadership;
    use crate::scheduling::ActivitiesSettings;

    fn gate(serving: &Serving) -> LeaderGate {
        let mut conf = Configuration::new();
        conf.set("yarn.resourcemanager.ha.enabled", "true");
        conf.set("yarn.resourcemanager.ha.rm-ids", "rm1,rm2");
        conf.set("yarn.resourcemanager.hostname.rm1", "h1");
        conf.set("yarn.resourcemanager.hostname.rm2", "h2");
        let ha = RmHaConfig::from_conf(&conf).unwrap();
        let (_tx, rx) = watch::channel(serving.clone());
        LeaderGate::new("rm2", ha, "web", |e| &e.webapp, rx)
    }

    fn routed(path: &str, query: Option<&str>, serving: Serving) -> Routing {
        route(path, query, &serving, &gate(&serving), "https")
    }

    #[test]
    fn a_standby_redirects_to_the_same_path_and_query_on_the_leaders_web_address() {
        let serving = Serving::NotLeader {
            leader: Some("rm1".to_owned()),
        };
        assert_eq!(
            routed(
                "/ws/v1/cluster/apps",
                Some("states=RUNNING&limit=2"),
                serving
            ),
            Routing::Redirect {
                location: "https://h1:8088/ws/v1/cluster/apps?states=RUNNING&limit=2".to_owned()
            }
        );
    }

    #[test]
    fn every_replica_answers_cluster_info_itself() {
        let serving = Serving::NotLeader {
            leader: Some("rm1".to_owned()),
        };
        assert_eq!(routed("/ws/v1/cluster/info", None, serving), Routing::Serve);
    }

    #[test]
    fn a_standby_that_knows_no_leader_refuses_for_now() {
        let routing = routed(
            "/ws/v1/cluster/apps",
            None,
            Serving::NotLeader { leader: None },
        );
        assert!(matches!(routing, Routing::Unavailable(_)), "{routing:?}");
    }

    #[test]
    fn a_replica_that_names_itself_leader_refuses_for_now_rather_than_loop() {
        let routing = routed(
            "/ws/v1/cluster/apps",
            None,
            Serving::NotLeader {
                leader: Some("rm2".to_owned()),
            },
        );
        assert!(matches!(routing, Routing::Unavailable(_)), "{routing:?}");
    }

    #[test]
    fn the_leader_serves_everything() {
        let leadership = Arc::new(Leadership::new(
            1,
            1,
            NodeTracker::default(),
            ActivitiesSettings::default(),
        ));
        assert_eq!(
            routed("/ws/v1/cluster/apps", None, Serving::Leader(leadership)),
            Routing::Serve
        );
    }
}
