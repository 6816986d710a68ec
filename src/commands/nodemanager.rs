//! `yarn-ha nodemanager`: runs one NodeManager in the foreground.

use std::path::Path;
use std::process::ExitCode;

use anyhow::Context;
use yarn_client::RmClientConfig;
use yarn_conf::Configuration;
use yarn_nodemanager::{NmConfig, NodeManager, simulated_node_config};
use yarn_security::TlsConfig;

use super::resourcemanager::stop_signal;
use crate::cli::NodeManagerArgs;

/// Loads the configuration, recovers and starts the node, and runs it until SIGINT or SIGTERM
/// (exit 0; its containers keep running for the next start) or until the ResourceManager shuts
/// it down or a server fails (returned, so `main` prints it and exits 1).
pub fn run(conf_dir: Option<&Path>, args: NodeManagerArgs) -> anyhow::Result<ExitCode> {
    super::raise_open_files_limit();
    let conf = match conf_dir {
        Some(dir) => Configuration::load_dir(dir)?,
        None => Configuration::with_defaults()?,
    };
    super::check_site_keys(&conf, yarn_conf::Daemon::NodeManager)?;
    let config = NmConfig::from_conf(&conf)?;
    let client = RmClientConfig::from_conf(&conf)?;
    let tls = TlsConfig::from_conf(&conf)?;
    super::run_daemon(async move {
        let Some(count) = args.simulate_nodes else {
            let node = NodeManager::start(config, client, tls)
                .await
                .context("starting the NodeManager")?;
            let node_id = node.node_id().to_string();
            node.run_until(stop_signal())
                .await
                .with_context(|| format!("NodeManager {node_id}"))?;
            return Ok(ExitCode::SUCCESS);
        };
        run_simulated(&config, &client, &tls, count).await
    })
}

/// Runs `count` simulated NodeManagers until SIGINT or SIGTERM; the first failure stops all.
async fn run_simulated(
    config: &NmConfig,
    client: &RmClientConfig,
    tls: &TlsConfig,
    count: u16,
) -> anyhow::Result<ExitCode> {
    let stop = tokio_util::sync::CancellationToken::new();
    let mut nodes = tokio::task::JoinSet::new();
    for index in 0..count {
        let node_config = simulated_node_config(config, index);
        let node = NodeManager::start(node_config, client.clone(), tls.clone())
            .await
            .with_context(|| format!("starting simulated NodeManager {index}"))?;
        let stopped = stop.clone().cancelled_owned();
        nodes.spawn(async move {
            let node_id = node.node_id().to_string();
            node.run_until(stopped)
                .await
                .with_context(|| format!("simulated NodeManager {node_id}"))
        });
    }
    tracing::info!(count, "simulated NodeManagers started");
    let outcome = tokio::select! {
        () = stop_signal() => Ok(()),
        Some(joined) = nodes.join_next() => joined.context("a simulated NodeManager task")?,
    };
    stop.cancel();
    while let Some(joined) = nodes.join_next().await {
        joined.context("a simulated NodeManager task")??;
    }
    outcome.map(|()| ExitCode::SUCCESS)
}
