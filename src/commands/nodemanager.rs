//! `yarn-ha nodemanager`: runs one NodeManager in the foreground.

use std::path::Path;
use std::process::ExitCode;

use anyhow::Context;
use yarn_client::RmClientConfig;
use yarn_conf::Configuration;
use yarn_nodemanager::{NmConfig, NodeManager};
use yarn_security::TlsConfig;

use super::resourcemanager::stop_signal;
use crate::cli::NodeManagerArgs;

/// Loads the configuration, recovers and starts the node, and runs it until SIGINT or SIGTERM
/// (exit 0; its containers keep running for the next start) or until the ResourceManager shuts
/// it down or a server fails (returned, so `main` prints it and exits 1).
pub fn run(conf_dir: Option<&Path>, _args: NodeManagerArgs) -> anyhow::Result<ExitCode> {
    let conf = match conf_dir {
        Some(dir) => Configuration::load_dir(dir)?,
        None => Configuration::with_defaults()?,
    };
    let config = NmConfig::from_conf(&conf)?;
    let client = RmClientConfig::from_conf(&conf)?;
    let tls = TlsConfig::from_conf(&conf)?;
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()
        .context("starting the async runtime")?;
    runtime.block_on(async move {
        let node = NodeManager::start(config, client, tls)
            .await
            .context("starting the NodeManager")?;
        let node_id = node.node_id().to_string();
        node.run_until(stop_signal())
            .await
            .with_context(|| format!("NodeManager {node_id}"))?;
        Ok(ExitCode::SUCCESS)
    })
}
