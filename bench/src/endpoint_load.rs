//! [`measure_endpoint`]: one endpoint's timed requests from concurrent clients, with the probe
//! node heartbeating meanwhile.

use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::Instant;

use anyhow::Context;
use hyper::StatusCode;
use tokio::sync::watch;
use tokio::task::JoinSet;

use crate::leader_probes::LeaderProbes;
use crate::rest_bench_report::{EndpointRun, RequestTally};
use crate::rest_client::RestClient;
use crate::rest_endpoint::{LoadedState, RestEndpoint};

/// How much of a refusal's body the report quotes (Hadoop's `RemoteException` message).
const ERROR_BODY_BYTES: usize = 400;

/// Measures `endpoint` against `state`: first one unrecorded request per client (the first
/// answer checked against `state`, so the figures are those of the whole answer), then
/// `requests` recorded ones, each client sending one at a time until that many were sent.
/// Meanwhile `probes` call the leader, one call at a time each, and stop once the last answer
/// is in.
///
/// A latency runs from just before a request is handed to the connection until its answer's
/// last byte arrived; only answers 200 are timed, anything else counts as an error.
///
/// # Errors
///
/// When a warm-up request fails, the checked answer does not match `state`, or a client task
/// panics.
pub(crate) async fn measure_endpoint(
    clients: &[RestClient],
    endpoint: RestEndpoint,
    state: &LoadedState,
    requests: usize,
    probes: &mut LeaderProbes,
) -> anyhow::Result<EndpointRun> {
    let path = endpoint.path(state);
    for (index, client) in clients.iter().enumerate() {
        let body = client.clone().get_ok(&path).await?;
        if index == 0 {
            endpoint.check(&body, state).map_err(|why| {
                anyhow::anyhow!("GET {path} does not hold the loaded state: {why}")
            })?;
        }
    }
    let sent = Arc::new(AtomicUsize::new(0));
    let mut running = JoinSet::new();
    let started = Instant::now();
    for client in clients {
        running.spawn(send(client.clone(), path.clone(), sent.clone(), requests));
    }
    let (stop, stopped) = watch::channel(false);
    let (tally, probed) = tokio::join!(
        async move {
            let mut tally = RequestTally::default();
            while let Some(joined) = running.join_next().await {
                match joined.context("a REST client task failed") {
                    Ok(client_tally) => tally.merge(client_tally),
                    Err(err) => {
                        let _ = stop.send(true);
                        return Err(err);
                    }
                }
            }
            // The probe holds the receiver until it returns.
            let _ = stop.send(true);
            Ok((tally, started.elapsed()))
        },
        probes.sample_until(stopped)
    );
    let (tally, measured) = tally?;
    let run = EndpointRun::new(endpoint, tally, measured, probed);
    tracing::info!(
        "GET {path}: {} answered, {} errors, p50 {:?} ms; heartbeat p99 {:?} ms, write p99 {:?} ms",
        run.ok,
        run.errors,
        run.latency.map(|l| l.p50_ms),
        run.probes.heartbeat.latency.map(|l| l.p99_ms),
        run.probes.commit.latency.map(|l| l.p99_ms)
    );
    Ok(run)
}

/// One client's loop: a request at a time while fewer than `requests` were sent by all.
async fn send(
    mut client: RestClient,
    path: String,
    sent: Arc<AtomicUsize>,
    requests: usize,
) -> RequestTally {
    let mut tally = RequestTally::default();
    while sent.fetch_add(1, Ordering::SeqCst) < requests {
        let started = Instant::now();
        let outcome = client.get(&path).await;
        let took = started.elapsed();
        match outcome {
            Ok(answer) if answer.status == StatusCode::OK => {
                tally.samples.push(took);
                let bytes = u64::try_from(answer.body.len()).unwrap_or(u64::MAX);
                tally.largest_body_bytes = tally.largest_body_bytes.max(bytes);
            }
            Ok(answer) => {
                tally.errors += 1;
                tally.first_error.get_or_insert_with(|| {
                    let start = &answer.body[..answer.body.len().min(ERROR_BODY_BYTES)];
                    format!(
                        "answered {}: {}",
                        answer.status,
                        String::from_utf8_lossy(start)
                    )
                });
            }
            Err(err) => {
                tally.errors += 1;
                tally.first_error.get_or_insert_with(|| format!("{err:#}"));
            }
        }
    }
    tally
}
