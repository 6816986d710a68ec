//! `yarn-ha resourcemanager`: runs one ResourceManager replica in the foreground.

use std::path::Path;
use std::process::ExitCode;

use anyhow::Context;
use yarn_conf::Configuration;
use yarn_rm_ha::scheduling::CAPACITY_SCHEDULER_XML;
use yarn_rm_ha::{ResourceManager, RmConfig};
use yarn_security::TlsConfig;

use crate::cli::ResourceManagerArgs;

/// Loads the configuration, starts the replica and runs it until SIGINT or SIGTERM (exit 0) or
/// a fatal error (returned, so `main` prints it and exits 1).
pub fn run(conf_dir: Option<&Path>, args: ResourceManagerArgs) -> anyhow::Result<ExitCode> {
    super::raise_open_files_limit();
    let conf = match conf_dir {
        Some(dir) => Configuration::load_dir(dir)?,
        None => Configuration::with_defaults()?,
    };
    super::check_site_keys(&conf, yarn_conf::Daemon::ResourceManager)?;
    let mut config = RmConfig::from_conf(&conf, args.rm_id.as_deref())?;
    config.queues.file = conf_dir.map(|dir| dir.join(CAPACITY_SCHEDULER_XML));
    // A replica that could lead must not start on queues it cannot schedule with.
    let queues = config.queues.load()?;
    for warning in queues.warnings() {
        tracing::warn!(file = %config.queues.describe(), "{warning}");
    }
    let tls = TlsConfig::from_conf(&conf)?;
    super::run_daemon(async move {
        let rm_id = config.rm_id.clone();
        let replica = ResourceManager::start(config, tls)
            .await
            .with_context(|| format!("starting ResourceManager {rm_id}"))?;
        replica
            .run_until(stop_signal())
            .await
            .with_context(|| format!("ResourceManager {rm_id}"))?;
        Ok(ExitCode::SUCCESS)
    })
}

/// Resolves on the first SIGINT or SIGTERM. If the handlers cannot be installed the replica
/// runs until killed, which is logged.
pub async fn stop_signal() {
    use tokio::signal::unix::{SignalKind, signal};
    match (
        signal(SignalKind::interrupt()),
        signal(SignalKind::terminate()),
    ) {
        (Ok(mut interrupt), Ok(mut terminate)) => {
            tokio::select! {
                _ = interrupt.recv() => tracing::info!("SIGINT received; stopping"),
                _ = terminate.recv() => tracing::info!("SIGTERM received; stopping"),
            }
        }
        (Err(err), _) | (_, Err(err)) => {
            tracing::error!(%err, "cannot install signal handlers; stop this process with SIGKILL");
            std::future::pending::<()>().await;
        }
    }
}
