//! `yarn-ha`: one binary with Hadoop's `yarn` verbs as subcommands.
//!
//! This file only parses the command line and dispatches; every command lives in the crate that
//! owns its subject (daemons in `rm-ha` and `nodemanager`, user commands in `client`, the PKI in
//! `security`, configuration in `conf`), with thin adapters under `commands/`.

mod cli;
mod commands;

use std::process::ExitCode;

use clap::Parser;

use crate::cli::Cli;

fn main() -> ExitCode {
    let cli = match Cli::try_parse_from(cli::hadoop_style_args(std::env::args())) {
        Ok(cli) => cli,
        // clap prints usage; it exits 2 for bad input and 0 for --help and --version.
        Err(err) => err.exit(),
    };
    // A simulation's output is its trace; the simulated replicas log only when asked to.
    let default_log = if matches!(cli.command, cli::Command::Sim(_)) {
        "off"
    } else {
        "info"
    };
    init_tracing(default_log);
    yarn_security::install_crypto_provider();
    match commands::run(cli) {
        Ok(code) => code,
        Err(err) => {
            eprintln!("yarn-ha: {err:#}");
            ExitCode::FAILURE
        }
    }
}

/// Logs go to stderr, filtered by `YARN_HA_LOG` (tracing's env-filter syntax), `default` when
/// it is unset.
fn init_tracing(default: &str) {
    let filter = tracing_subscriber::EnvFilter::try_from_env("YARN_HA_LOG")
        .unwrap_or_else(|_| tracing_subscriber::EnvFilter::new(default));
    tracing_subscriber::fmt()
        .with_env_filter(filter)
        .with_writer(std::io::stderr)
        .init();
}
