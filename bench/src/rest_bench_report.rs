//! The results of `yarn-ha bench rest`: the figures, their JSON form and their table.

use std::fmt;
use std::time::Duration;

use serde::{Deserialize, Serialize};
use yarn_minicluster::LatencySummary;

use crate::latency_cell::latency_cell;
use crate::leader_probes::ProbeTallies;
use crate::machine::Machine;
use crate::probe::{PROBE_PAUSE, ProbeTally};
use crate::rest_endpoint::{LoadedState, RestEndpoint};

/// Everything one run of `yarn-ha bench rest` measured, with the settings, the state it
/// measured against and the machine. Serialises to the JSON of `--json`; its `Display` is the
/// table printed otherwise.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct RestBenchReport {
    /// The machine and build.
    pub machine: Machine,
    /// How many ResourceManager replicas the cluster had.
    pub replicas: usize,
    /// The replica that led, and answered every request.
    pub leader: String,
    /// What was in the state, checked before and after the measurements.
    pub state: LoadedState,
    /// From the first submission until every application was admitted and the RUNNING ones'
    /// AMs registered, in seconds.
    pub apps_load_secs: f64,
    /// From the first node registration until the last, in seconds.
    pub nodes_load_secs: f64,
    /// Measured requests per endpoint.
    pub requests: usize,
    /// Clients sending at the same time, each over its own connection.
    pub concurrency: usize,
    /// The probes on the leader while nothing else ran.
    pub idle: ProbeSummaries,
    /// One run per endpoint, in the order measured.
    pub endpoints: Vec<EndpointRun>,
}

/// One probe's calls over one stretch.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ProbeSummary {
    /// Round trips of the calls that succeeded; `None` when none did.
    pub latency: Option<LatencySummary>,
    /// Calls that failed.
    pub errors: u64,
    /// The first of those failures.
    pub first_error: Option<String>,
}

impl From<ProbeTally> for ProbeSummary {
    fn from(mut tally: ProbeTally) -> Self {
        ProbeSummary {
            latency: LatencySummary::from_samples(&mut tally.samples),
            errors: tally.errors,
            first_error: tally.first_error,
        }
    }
}

/// Both probes on the leader over one stretch.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ProbeSummaries {
    /// NodeHeartbeat of one simulated node: waits for the node tracker's lock.
    pub heartbeat: ProbeSummary,
    /// GetNewApplication, a Raft write: its apply waits for the state's write lock.
    pub commit: ProbeSummary,
}

impl From<ProbeTallies> for ProbeSummaries {
    fn from(tallies: ProbeTallies) -> Self {
        ProbeSummaries {
            heartbeat: tallies.heartbeat.into(),
            commit: tallies.commit.into(),
        }
    }
}

/// The measured requests of one endpoint, and the probes on the leader meanwhile.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct EndpointRun {
    /// Which endpoint.
    pub endpoint: RestEndpoint,
    /// Its path below `/ws/v1/cluster`.
    pub path: String,
    /// Requests answered 200.
    pub ok: usize,
    /// Requests that failed or were answered otherwise.
    pub errors: u64,
    /// The first of those failures.
    pub first_error: Option<String>,
    /// From the first measured request until the last answer, in seconds.
    pub measured_secs: f64,
    /// Requests answered 200 per second of that time.
    pub requests_per_sec: f64,
    /// From sending a request until its answer's last byte, over the requests answered 200.
    pub latency: Option<LatencySummary>,
    /// The largest answer body, in bytes.
    pub largest_body_bytes: u64,
    /// The probes on the leader while the requests ran.
    pub probes: ProbeSummaries,
}

/// What the clients of one endpoint's run measured together.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct RequestTally {
    /// The latencies of the requests answered 200.
    pub samples: Vec<Duration>,
    /// Requests that failed or were answered otherwise.
    pub errors: u64,
    /// The first of those failures.
    pub first_error: Option<String>,
    /// The largest answer body, in bytes.
    pub largest_body_bytes: u64,
}

impl RequestTally {
    /// Adds what another client measured.
    pub fn merge(&mut self, other: RequestTally) {
        self.samples.extend(other.samples);
        self.errors += other.errors;
        if self.first_error.is_none() {
            self.first_error = other.first_error;
        }
        self.largest_body_bytes = self.largest_body_bytes.max(other.largest_body_bytes);
    }
}

impl EndpointRun {
    /// The run of `endpoint` whose requests measured `requests` over `measured`, while the
    /// probes measured `probes`.
    pub fn new(
        endpoint: RestEndpoint,
        mut requests: RequestTally,
        measured: Duration,
        probes: ProbeTallies,
    ) -> Self {
        let secs = measured.as_secs_f64();
        let ok = requests.samples.len();
        EndpointRun {
            endpoint,
            path: endpoint.label(),
            ok,
            errors: requests.errors,
            first_error: requests.first_error,
            measured_secs: secs,
            requests_per_sec: if secs > 0.0 { ok as f64 / secs } else { 0.0 },
            latency: LatencySummary::from_samples(&mut requests.samples),
            largest_body_bytes: requests.largest_body_bytes,
            probes: probes.into(),
        }
    }
}

impl RestBenchReport {
    /// The report as pretty-printed JSON.
    ///
    /// # Errors
    ///
    /// Never in practice: every field is a plain number, string or list.
    pub fn to_json(&self) -> anyhow::Result<String> {
        Ok(serde_json::to_string_pretty(self)?)
    }
}

/// One probe's columns: p50, p99, max and the number of calls timed.
fn probe_cells(probe: &ProbeSummary) -> String {
    let latency = probe.latency.as_ref();
    format!(
        "{:>8} {:>8} {:>8} {:>6}",
        latency_cell(latency, |s| s.p50_ms),
        latency_cell(latency, |s| s.p99_ms),
        latency_cell(latency, |s| s.max_ms),
        latency.map_or(0, |s| s.count)
    )
}

/// A row of the leader table: `label`, then both probes' columns.
fn probes_row(f: &mut fmt::Formatter<'_>, label: &str, probes: &ProbeSummaries) -> fmt::Result {
    writeln!(
        f,
        "{label:<32} {} | {}",
        probe_cells(&probes.heartbeat),
        probe_cells(&probes.commit)
    )
}

impl fmt::Display for RestBenchReport {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let machine = &self.machine;
        let state = &self.state;
        writeln!(
            f,
            "yarn-ha bench rest: {} ResourceManager replicas on loopback, REST over HTTP/2 and \
             mutual TLS",
            self.replicas
        )?;
        writeln!(
            f,
            "machine: {} CPUs, {}, Linux {}, {} build",
            machine.cpus, machine.cpu_model, machine.kernel, machine.build_profile
        )?;
        writeln!(
            f,
            "state: {} applications ({} RUNNING, {} ACCEPTED) loaded in {:.1} s; {} nodes \
             RUNNING, registered in {:.1} s",
            state.apps,
            state.running,
            state.apps - state.running,
            self.apps_load_secs,
            state.nodes,
            self.nodes_load_secs
        )?;
        writeln!(
            f,
            "load: {} requests per endpoint from {} concurrent client(s) to the leader {}, each \
             client warmed up first",
            self.requests, self.concurrency, self.leader
        )?;
        writeln!(f)?;
        writeln!(
            f,
            "{:<32} {:>8} {:>7} {:>8} {:>8} {:>8} {:>6} {:>10}",
            "GET /ws/v1/cluster...",
            "requests",
            "req/s",
            "p50 ms",
            "p99 ms",
            "max ms",
            "errors",
            "bytes"
        )?;
        for run in &self.endpoints {
            let latency = run.latency.as_ref();
            writeln!(
                f,
                "{:<32} {:>8} {:>7.1} {:>8} {:>8} {:>8} {:>6} {:>10}",
                run.path,
                run.ok,
                run.requests_per_sec,
                latency_cell(latency, |s| s.p50_ms),
                latency_cell(latency, |s| s.p99_ms),
                latency_cell(latency, |s| s.max_ms),
                run.errors,
                run.largest_body_bytes
            )?;
        }
        writeln!(f)?;
        writeln!(
            f,
            "the leader meanwhile: NodeHeartbeat of one simulated node, and GetNewApplication (a \
             Raft write), each one call at a time {} ms apart, in ms",
            PROBE_PAUSE.as_millis()
        )?;
        writeln!(
            f,
            "{:<32} {:>8} {:>8} {:>8} {:>6} | {:>8} {:>8} {:>8} {:>6}",
            "while", "hb p50", "hb p99", "hb max", "beats", "wr p50", "wr p99", "wr max", "writes"
        )?;
        probes_row(f, "(idle: no request)", &self.idle)?;
        for run in &self.endpoints {
            probes_row(f, &run.path, &run.probes)?;
        }
        let mut stretches = vec![("idle", &self.idle)];
        stretches.extend(
            self.endpoints
                .iter()
                .map(|run| (run.path.as_str(), &run.probes)),
        );
        for run in &self.endpoints {
            if let Some(error) = &run.first_error {
                writeln!(f, "first error of {}: {error}", run.path)?;
            }
        }
        for (when, probes) in stretches {
            for (probe, summary) in [("heartbeat", &probes.heartbeat), ("write", &probes.commit)] {
                if let Some(error) = &summary.first_error {
                    writeln!(f, "first {probe} error ({when}): {error}")?;
                }
            }
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ms(values: &[u64]) -> Vec<Duration> {
        values.iter().copied().map(Duration::from_millis).collect()
    }

    fn probe(values: &[u64], errors: u64) -> ProbeTally {
        ProbeTally {
            samples: ms(values),
            errors,
            first_error: (errors > 0).then(|| "Unavailable: not leader".to_owned()),
        }
    }

    fn probes(heartbeats: &[u64], writes: &[u64], errors: u64) -> ProbeTallies {
        ProbeTallies {
            heartbeat: probe(heartbeats, errors),
            commit: probe(writes, 0),
        }
    }

    fn report() -> RestBenchReport {
        let apps = RequestTally {
            samples: ms(&[300, 100, 200, 400]),
            errors: 1,
            first_error: Some("GET /ws/v1/cluster/apps answered 503".to_owned()),
            largest_body_bytes: 12_345_678,
        };
        RestBenchReport {
            machine: Machine {
                cpus: 2,
                cpu_model: "Test CPU".to_owned(),
                kernel: "6.1.0".to_owned(),
                build_profile: "release".to_owned(),
            },
            replicas: 3,
            leader: "rm2".to_owned(),
            state: LoadedState {
                apps: 10_000,
                running: 200,
                nodes: 10_000,
                sample_app: "application_1_0001".to_owned(),
            },
            apps_load_secs: 30.31,
            nodes_load_secs: 4.5,
            requests: 4,
            concurrency: 1,
            idle: probes(&[1, 2, 3], &[8, 9], 0).into(),
            endpoints: vec![
                EndpointRun::new(
                    RestEndpoint::Apps,
                    apps,
                    Duration::from_secs(2),
                    probes(&[1, 50, 2], &[10, 70], 0),
                ),
                EndpointRun::new(
                    RestEndpoint::Nodes,
                    RequestTally::default(),
                    Duration::ZERO,
                    probes(&[], &[], 2),
                ),
            ],
        }
    }

    #[test]
    fn tallies_merge_and_runs_summarise_them() {
        let mut tally = RequestTally {
            samples: ms(&[1]),
            largest_body_bytes: 10,
            ..RequestTally::default()
        };
        tally.merge(RequestTally {
            samples: ms(&[3, 2]),
            errors: 2,
            first_error: Some("late".to_owned()),
            largest_body_bytes: 7,
        });
        assert_eq!(tally.samples.len(), 3);
        assert_eq!((tally.errors, tally.largest_body_bytes), (2, 10));
        assert_eq!(tally.first_error.as_deref(), Some("late"));

        let run = &report().endpoints[0];
        assert_eq!((run.ok, run.errors), (4, 1));
        assert_eq!(run.requests_per_sec, 2.0);
        let latency = run.latency.unwrap();
        assert_eq!((latency.p50_ms, latency.p99_ms), (200.0, 400.0));
        assert_eq!(run.probes.heartbeat.latency.unwrap().max_ms, 50.0);
        assert_eq!(run.probes.commit.latency.unwrap().p50_ms, 10.0);
        let empty = &report().endpoints[1];
        assert_eq!((empty.requests_per_sec, empty.latency), (0.0, None));
        assert_eq!(empty.probes.heartbeat.latency, None);
        assert_eq!(empty.probes.heartbeat.errors, 2);
    }

    #[test]
    fn the_tables_have_a_row_per_endpoint_and_the_idle_probes() {
        let table = report().to_string();
        assert!(
            table.contains("10000 applications (200 RUNNING, 9800 ACCEPTED) loaded in 30.3 s"),
            "{table}"
        );
        assert!(
            table.contains("10000 nodes RUNNING, registered in 4.5 s"),
            "{table}"
        );
        assert!(table.contains("to the leader rm2"), "{table}");
        // Each label starts two rows: the endpoint's and the leader's meanwhile.
        let rows = |label: &str| -> Vec<Vec<String>> {
            table
                .lines()
                .filter(|line| line.starts_with(label))
                .map(|line| line.split_whitespace().map(str::to_owned).collect())
                .collect()
        };
        assert_eq!(
            rows("/apps "),
            [
                vec![
                    "/apps", "4", "2.0", "200.00", "400.00", "400.00", "1", "12345678"
                ],
                vec![
                    "/apps", "2.00", "50.00", "50.00", "3", "|", "10.00", "70.00", "70.00", "2"
                ]
            ]
        );
        assert_eq!(
            rows("/nodes "),
            [
                vec!["/nodes", "0", "0.0", "-", "-", "-", "0", "0"],
                vec!["/nodes", "-", "-", "-", "0", "|", "-", "-", "-", "0"]
            ]
        );
        assert_eq!(
            rows("(idle"),
            [vec![
                "(idle:", "no", "request)", "2.00", "3.00", "3.00", "3", "|", "8.00", "9.00",
                "9.00", "2"
            ]]
        );
        assert!(
            table.contains("first error of /apps: GET /ws/v1/cluster/apps answered 503"),
            "{table}"
        );
        assert!(
            table.contains("first heartbeat error (/nodes): Unavailable: not leader"),
            "{table}"
        );
    }

    #[test]
    fn the_json_round_trips_with_the_documented_names() {
        let report = report();
        let json = report.to_json().unwrap();
        let value: serde_json::Value = serde_json::from_str(&json).unwrap();
        assert_eq!(value["state"]["running"], 200);
        assert_eq!(value["endpoints"][0]["endpoint"], "apps");
        assert_eq!(value["endpoints"][0]["path"], "/apps");
        assert_eq!(value["endpoints"][0]["latency"]["p99_ms"], 400.0);
        assert_eq!(
            value["endpoints"][0]["probes"]["heartbeat"]["latency"]["count"],
            3
        );
        assert_eq!(
            value["endpoints"][0]["probes"]["commit"]["latency"]["max_ms"],
            70.0
        );
        assert!(value["endpoints"][1]["latency"].is_null());
        assert_eq!(value["idle"]["heartbeat"]["latency"]["p50_ms"], 2.0);
        let parsed: RestBenchReport = serde_json::from_str(&json).unwrap();
        assert_eq!(parsed, report);
    }
}
