//! [`RestEndpoint`]: the REST calls `yarn-ha bench rest` times, and how an answer is checked
//! against the state the benchmark loaded ([`LoadedState`]).

use serde::{Deserialize, Serialize};
use serde_json::Value;

/// The `limit` of the filtered application list.
pub const RUNNING_LIMIT: usize = 100;

/// The prefix of every REST path.
const CLUSTER: &str = "/ws/v1/cluster";

/// What the benchmark put in the cluster's state before measuring.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct LoadedState {
    /// Applications submitted (all admitted).
    pub apps: usize,
    /// Of those, how many are RUNNING (their unmanaged AM registered); the rest are ACCEPTED.
    pub running: usize,
    /// Simulated NodeManagers registered, all RUNNING.
    pub nodes: usize,
    /// The application `/apps/{id}` asks for.
    pub sample_app: String,
}

/// One timed REST call.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum RestEndpoint {
    /// `GET /apps`: every application.
    Apps,
    /// `GET /apps?states=RUNNING&limit=100`.
    RunningApps,
    /// `GET /nodes`: every node.
    Nodes,
    /// `GET /apps/{id}`: one application.
    App,
    /// `GET /metrics`: the cluster's figures.
    Metrics,
}

impl RestEndpoint {
    /// Every endpoint, in the order they are measured.
    pub const ALL: [RestEndpoint; 5] = [
        RestEndpoint::Apps,
        RestEndpoint::RunningApps,
        RestEndpoint::Nodes,
        RestEndpoint::App,
        RestEndpoint::Metrics,
    ];

    /// The path below `/ws/v1/cluster`, as the report's table shows it.
    pub fn label(self) -> String {
        match self {
            RestEndpoint::Apps => "/apps".to_owned(),
            RestEndpoint::RunningApps => format!("/apps?states=RUNNING&limit={RUNNING_LIMIT}"),
            RestEndpoint::Nodes => "/nodes".to_owned(),
            RestEndpoint::App => "/apps/{id}".to_owned(),
            RestEndpoint::Metrics => "/metrics".to_owned(),
        }
    }

    /// The request path (with its query) for `state`.
    pub fn path(self, state: &LoadedState) -> String {
        match self {
            RestEndpoint::App => format!("{CLUSTER}/apps/{}", state.sample_app),
            other => format!("{CLUSTER}{}", other.label()),
        }
    }

    /// Checks that `body` is the JSON answer this endpoint gives for `state`: every
    /// application, the RUNNING ones up to the limit, every node, the sample application,
    /// or the figures of all of them.
    ///
    /// # Errors
    ///
    /// What does not match, in words.
    pub fn check(self, body: &[u8], state: &LoadedState) -> Result<(), String> {
        let json: Value =
            serde_json::from_slice(body).map_err(|err| format!("the answer is not JSON: {err}"))?;
        match self {
            RestEndpoint::Apps => expect_count(&json, "apps", "app", state.apps),
            RestEndpoint::RunningApps => {
                expect_count(&json, "apps", "app", state.running.min(RUNNING_LIMIT))?;
                let states = items(&json, "apps", "app")
                    .iter()
                    .filter(|app| app["state"] != "RUNNING")
                    .count();
                match states {
                    0 => Ok(()),
                    n => Err(format!("{n} listed applications are not RUNNING")),
                }
            }
            RestEndpoint::Nodes => expect_count(&json, "nodes", "node", state.nodes),
            RestEndpoint::App => match json["app"]["id"].as_str() {
                Some(id) if id == state.sample_app => Ok(()),
                other => Err(format!(
                    "asked for {}, answered {other:?}",
                    state.sample_app
                )),
            },
            RestEndpoint::Metrics => state.check_metrics(&json),
        }
    }
}

impl LoadedState {
    /// Checks that `json`, the answer of `/ws/v1/cluster/metrics`, counts exactly this state:
    /// every application submitted, the RUNNING ones running, the rest pending, none ended, and
    /// every node active.
    ///
    /// # Errors
    ///
    /// Each figure that differs, with what was expected.
    pub fn check_metrics(&self, json: &Value) -> Result<(), String> {
        let metrics = &json["clusterMetrics"];
        let expected = [
            ("appsSubmitted", self.apps),
            ("appsRunning", self.running),
            ("appsPending", self.apps - self.running),
            ("appsCompleted", 0),
            ("appsFailed", 0),
            ("appsKilled", 0),
            ("activeNodes", self.nodes),
            ("lostNodes", 0),
        ];
        let wrong: Vec<String> = expected
            .iter()
            .filter_map(|&(name, want)| {
                let got = metrics[name].as_u64();
                (got != u64::try_from(want).ok())
                    .then(|| format!("{name} is {got:?}, expected {want}"))
            })
            .collect();
        if wrong.is_empty() {
            Ok(())
        } else {
            Err(wrong.join("; "))
        }
    }
}

/// The items of a Hadoop list answer (`{"apps": {"app": [...]}}`); an empty list leaves the
/// inner array out.
fn items<'a>(json: &'a Value, outer: &str, inner: &str) -> &'a [Value] {
    json[outer][inner].as_array().map_or(&[], Vec::as_slice)
}

fn expect_count(json: &Value, outer: &str, inner: &str, want: usize) -> Result<(), String> {
    if !json[outer].is_object() {
        return Err(format!("the answer has no {outer:?} object"));
    }
    match items(json, outer, inner).len() {
        got if got == want => Ok(()),
        got => Err(format!("{got} {inner} entries listed, expected {want}")),
    }
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    fn state() -> LoadedState {
        LoadedState {
            apps: 3,
            running: 2,
            nodes: 2,
            sample_app: "application_1_0001".to_owned(),
        }
    }

    fn app(state: &str) -> Value {
        json!({"id": "application_1_0001", "state": state})
    }

    fn check(endpoint: RestEndpoint, answer: &Value) -> Result<(), String> {
        endpoint.check(answer.to_string().as_bytes(), &state())
    }

    #[test]
    fn paths_are_hadoops() {
        let state = state();
        let paths: Vec<String> = RestEndpoint::ALL.iter().map(|e| e.path(&state)).collect();
        assert_eq!(
            paths,
            [
                "/ws/v1/cluster/apps",
                "/ws/v1/cluster/apps?states=RUNNING&limit=100",
                "/ws/v1/cluster/nodes",
                "/ws/v1/cluster/apps/application_1_0001",
                "/ws/v1/cluster/metrics",
            ]
        );
        assert_eq!(RestEndpoint::App.label(), "/apps/{id}");
    }

    #[test]
    fn lists_must_hold_everything_loaded() {
        let apps = json!({"apps": {"app": [app("ACCEPTED"), app("RUNNING"), app("RUNNING")]}});
        check(RestEndpoint::Apps, &apps).unwrap();
        let short = json!({"apps": {"app": [app("RUNNING")]}});
        let err = check(RestEndpoint::Apps, &short).unwrap_err();
        assert_eq!(err, "1 app entries listed, expected 3");
        let err = check(RestEndpoint::Nodes, &json!({"nodes": {}})).unwrap_err();
        assert_eq!(err, "0 node entries listed, expected 2");
        check(RestEndpoint::Nodes, &json!({"nodes": {"node": [{}, {}]}})).unwrap();
        let err = check(RestEndpoint::Nodes, &json!({"RemoteException": {}})).unwrap_err();
        assert!(err.contains("no \"nodes\" object"), "{err}");
        let err = RestEndpoint::Apps.check(b"<apps/>", &state()).unwrap_err();
        assert!(err.starts_with("the answer is not JSON"), "{err}");
    }

    #[test]
    fn the_filtered_list_holds_only_running_applications_up_to_the_limit() {
        let running = json!({"apps": {"app": [app("RUNNING"), app("RUNNING")]}});
        check(RestEndpoint::RunningApps, &running).unwrap();
        let mixed = json!({"apps": {"app": [app("RUNNING"), app("ACCEPTED")]}});
        let err = check(RestEndpoint::RunningApps, &mixed).unwrap_err();
        assert_eq!(err, "1 listed applications are not RUNNING");
        let many = LoadedState {
            apps: 500,
            running: 150,
            ..state()
        };
        let hundred: Vec<Value> = (0..100).map(|_| app("RUNNING")).collect();
        let answer = json!({"apps": {"app": hundred}}).to_string();
        RestEndpoint::RunningApps
            .check(answer.as_bytes(), &many)
            .unwrap();
    }

    #[test]
    fn one_application_is_the_one_asked_for() {
        check(RestEndpoint::App, &json!({"app": app("RUNNING")})).unwrap();
        let other = json!({"app": {"id": "application_1_0002"}});
        let err = check(RestEndpoint::App, &other).unwrap_err();
        assert!(err.contains("application_1_0002"), "{err}");
    }

    #[test]
    fn the_metrics_must_count_the_loaded_state() {
        let metrics = |running: u64, lost: u64| {
            json!({"clusterMetrics": {
                "appsSubmitted": 3, "appsRunning": running, "appsPending": 3 - running,
                "appsCompleted": 0, "appsFailed": 0, "appsKilled": 0,
                "activeNodes": 2 - lost, "lostNodes": lost,
            }})
        };
        check(RestEndpoint::Metrics, &metrics(2, 0)).unwrap();
        let err = check(RestEndpoint::Metrics, &metrics(1, 1)).unwrap_err();
        assert_eq!(
            err,
            "appsRunning is Some(1), expected 2; appsPending is Some(2), expected 1; \
             activeNodes is Some(1), expected 2; lostNodes is Some(1), expected 0"
        );
    }
}
