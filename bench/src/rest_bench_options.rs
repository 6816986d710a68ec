//! What `yarn-ha bench rest` measures, and how its settings are checked.

use std::path::PathBuf;

/// The most applications one run may load: the minicluster's single `default` queue admits at
/// most `yarn.scheduler.capacity.maximum-applications` (10,000) pending and running
/// applications, and they all belong to one user, whose share of it is the whole queue.
pub const MAX_APPS: usize = 10_000;

/// The most simulated NodeManagers. They all sit on the host of the NodeManager certificate
/// (a certificate may speak only for nodes on its own host) and differ by port, from
/// [`FIRST_NODE_PORT`] up.
pub const MAX_REST_NODES: usize = 50_000;

/// The port of the first simulated node; the others follow it.
pub const FIRST_NODE_PORT: u16 = 10_000;

/// The most measured requests per endpoint.
pub const MAX_REQUESTS: usize = 10_000;

/// The most concurrent REST clients. Each holds its own HTTP/2 connection; past a few per
/// core they only queue behind each other.
pub const MAX_CONCURRENCY: usize = 64;

/// The settings of `yarn-ha bench rest`, named after its command-line flags.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RestBenchOptions {
    /// `--dir`: where to lay out the cluster (new or empty; kept afterwards). `None`: a fresh
    /// directory under the system's temporary directory, removed at the end.
    pub dir: Option<PathBuf>,
    /// `--apps`: applications in the state while the API is measured.
    pub apps: usize,
    /// `--nodes`: simulated NodeManagers registered with the leader.
    pub nodes: usize,
    /// `--requests`: measured requests per endpoint, after the warm-up.
    pub requests: usize,
    /// `--concurrency`: REST clients sending at the same time, one request each at a time.
    pub concurrency: usize,
}

impl Default for RestBenchOptions {
    /// The defaults of the command line: 10,000 applications and 10,000 nodes, 100 requests
    /// per endpoint from one client, in a temporary directory.
    fn default() -> Self {
        RestBenchOptions {
            dir: None,
            apps: 10_000,
            nodes: 10_000,
            requests: 100,
            concurrency: 1,
        }
    }
}

impl RestBenchOptions {
    /// Checks every setting before anything is started.
    ///
    /// # Errors
    ///
    /// A message naming the flag and the value when `--apps` is not 1 to [`MAX_APPS`],
    /// `--nodes` not 1 to [`MAX_REST_NODES`], `--requests` not 1 to [`MAX_REQUESTS`], or
    /// `--concurrency` not 1 to [`MAX_CONCURRENCY`] or above `--requests`.
    pub fn validate(&self) -> anyhow::Result<()> {
        anyhow::ensure!(
            (1..=MAX_APPS).contains(&self.apps),
            "--apps {}: the state must hold 1 to {MAX_APPS} applications (the default queue's \
             maximum-applications, all of them one user's)",
            self.apps
        );
        anyhow::ensure!(
            (1..=MAX_REST_NODES).contains(&self.nodes),
            "--nodes {}: 1 to {MAX_REST_NODES} simulated NodeManagers (one port each on one host; \
             one of them also times its heartbeats)",
            self.nodes
        );
        anyhow::ensure!(
            (1..=MAX_REQUESTS).contains(&self.requests),
            "--requests {}: each endpoint is measured over 1 to {MAX_REQUESTS} requests",
            self.requests
        );
        anyhow::ensure!(
            (1..=MAX_CONCURRENCY).contains(&self.concurrency),
            "--concurrency {}: 1 to {MAX_CONCURRENCY} concurrent clients, each over its own \
             connection",
            self.concurrency
        );
        anyhow::ensure!(
            self.concurrency <= self.requests,
            "--concurrency {} exceeds --requests {}: every client must send at least one \
             measured request",
            self.concurrency,
            self.requests
        );
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn must_refuse(options: RestBenchOptions, flag: &str, detail: &str) {
        let err = options.validate().unwrap_err().to_string();
        assert!(err.starts_with(flag), "{err}");
        assert!(err.contains(detail), "{err}");
    }

    #[test]
    fn the_defaults_are_the_issue_figures_and_valid() {
        let options = RestBenchOptions::default();
        options.validate().unwrap();
        assert_eq!((options.apps, options.nodes), (10_000, 10_000));
        assert_eq!((options.requests, options.concurrency), (100, 1));
        assert_eq!(options.dir, None);
    }

    #[test]
    fn every_count_is_bounded() {
        let base = RestBenchOptions::default;
        must_refuse(
            RestBenchOptions { apps: 0, ..base() },
            "--apps 0",
            "1 to 10000",
        );
        must_refuse(
            RestBenchOptions {
                apps: 10_001,
                ..base()
            },
            "--apps 10001",
            "maximum-applications",
        );
        must_refuse(
            RestBenchOptions { nodes: 0, ..base() },
            "--nodes 0",
            "1 to 50000",
        );
        must_refuse(
            RestBenchOptions {
                nodes: 50_001,
                ..base()
            },
            "--nodes 50001",
            "1 to 50000",
        );
        must_refuse(
            RestBenchOptions {
                requests: 0,
                ..base()
            },
            "--requests 0",
            "1 to 10000",
        );
        must_refuse(
            RestBenchOptions {
                concurrency: 65,
                ..base()
            },
            "--concurrency 65",
            "1 to 64",
        );
        RestBenchOptions {
            apps: 1,
            nodes: MAX_REST_NODES,
            requests: 1,
            concurrency: 1,
            dir: None,
        }
        .validate()
        .unwrap();
    }

    #[test]
    fn every_client_gets_a_request() {
        must_refuse(
            RestBenchOptions {
                requests: 4,
                concurrency: 8,
                ..RestBenchOptions::default()
            },
            "--concurrency 8",
            "exceeds --requests 4",
        );
    }

    #[test]
    fn the_last_node_port_is_a_port() {
        let last = usize::from(FIRST_NODE_PORT) + MAX_REST_NODES - 1;
        assert!(u16::try_from(last).is_ok(), "{last}");
    }
}
