//! `yarn-ha queue -status <queue>`: prints a queue's status from the leader.

use std::path::Path;
use std::process::ExitCode;

use anyhow::Context;
use yarn_conf::Configuration;

use crate::cli::QueueArgs;

/// Prints the queue's status and exits 0, or prints the failure on stderr and exits 1.
pub fn run(conf_dir: Option<&Path>, args: QueueArgs) -> anyhow::Result<ExitCode> {
    let dir = conf_dir.context(
        "queue needs a configuration directory: pass --conf-dir DIR or set YARN_CONF_DIR",
    )?;
    let conf = Configuration::load_dir(dir)?;
    Ok(super::report_outcome(
        yarn_client::queue::queue_status_blocking(&conf, &args.status),
    ))
}
