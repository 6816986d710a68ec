//! Adapters from parsed command lines to the crates that do the work.

mod application;
mod applicationattempt;
mod bench;
mod chaos;
mod cluster;
mod conf;
mod container;
mod hadoop_client_conf;
mod minicluster;
mod node;
mod nodemanager;
mod pki;
mod placement;
mod queue;
mod reservation;
mod resourcemanager;
mod rmadmin;
mod samples;
mod sim;
mod top;

use std::path::Path;
use std::process::ExitCode;

use anyhow::Context;
use yarn_client::application_cli::{self, UserCommand};
use yarn_conf::{Configuration, Daemon, SiteReport};

use crate::cli::{Cli, Command};

/// Runs one parsed command and returns the process exit status.
///
/// Errors returned here are printed once by `main` with their whole cause chain.
pub fn run(cli: Cli) -> anyhow::Result<ExitCode> {
    let conf_dir = cli.conf_dir.as_deref();
    match cli.command {
        Command::Pki(command) => pki::run(command),
        Command::Conf(command) => conf::run(conf_dir, command),
        Command::Resourcemanager(args) => resourcemanager::run(conf_dir, args),
        Command::Rmadmin(args) => rmadmin::run(conf_dir, args),
        Command::Minicluster(command) => minicluster::run(command),
        Command::Nodemanager(args) => nodemanager::run(conf_dir, args),
        Command::Application(args) => application::run(conf_dir, args),
        Command::Node(args) => node::run(conf_dir, args),
        Command::Cluster(args) => cluster::run(conf_dir, args),
        Command::Applicationattempt(args) => applicationattempt::run(conf_dir, args),
        Command::Container(args) => container::run(conf_dir, args),
        Command::Queue(args) => queue::run(conf_dir, args),
        Command::Placement(command) => placement::run(&command),
        Command::Schedulerconf(args) => rmadmin::schedulerconf(conf_dir, args),
        Command::Reservation(command) => reservation::run(conf_dir, command),
        Command::Top(args) => top::run(conf_dir, args),
        Command::Dshell(args) => samples::dshell(conf_dir, &args.args),
        Command::Pi(args) => samples::pi(conf_dir, &args.args),
        Command::DshellAm(args) => samples::dshell_am(conf_dir, &args.args),
        Command::PiAm(args) => samples::pi_am(conf_dir, &args.args),
        Command::PiMap(args) => samples::pi_map(&args.args),
        Command::Chaos(command) => chaos::run(command),
        Command::Bench(command) => bench::run(conf_dir, command),
        Command::Sim(args) => sim::run(&args),
    }
}

/// Prints a client command's output on stdout (exit 0) or its failure as one line on stderr
/// (exit 1).
fn report_outcome(outcome: Result<String, yarn_client::Error>) -> std::process::ExitCode {
    match outcome {
        Ok(output) => {
            print!("{output}");
            std::process::ExitCode::SUCCESS
        }
        Err(err) => {
            eprintln!("{err}");
            std::process::ExitCode::FAILURE
        }
    }
}

/// Runs one of the user commands (`application`, `node`, `applicationattempt`, `container`)
/// against the cluster configured in `conf_dir`, writing its output to stdout as it goes.
///
/// Exits 0 when it succeeded, or prints the failure as one line on stderr (what failed, on
/// which replica and address) and exits 1. A configuration directory is required: without one
/// there are neither replica addresses nor certificates to use.
fn run_user_command(
    conf_dir: Option<&Path>,
    verb: &str,
    command: &UserCommand,
) -> anyhow::Result<ExitCode> {
    let dir = conf_dir.with_context(|| {
        format!("{verb} needs a configuration directory: pass --conf-dir DIR or set YARN_CONF_DIR")
    })?;
    let conf = Configuration::load_dir(dir)?;
    let mut stdout = std::io::stdout().lock();
    match application_cli::run_blocking(&conf, command, &mut stdout) {
        Ok(()) => Ok(ExitCode::SUCCESS),
        Err(err) => {
            eprintln!("{err}");
            Ok(ExitCode::FAILURE)
        }
    }
}

/// How long a daemon's runtime may take to wind down once the daemon has stopped, before the
/// process exits anyway.
const RUNTIME_STOP: std::time::Duration = std::time::Duration::from_secs(2);

/// Refuses to start `daemon` on a `yarn-site.xml` key that concerns it and that it does not
/// honour, set to a value that would need it to, and logs a warning for every key that concerns
/// it and that it ignores (`yarn_conf::unhonoured`).
fn check_site_keys(conf: &Configuration, daemon: Daemon) -> anyhow::Result<()> {
    for warning in SiteReport::of(conf, daemon, &yarn_scheduler::key_verdict).into_result()? {
        tracing::warn!("{warning}");
    }
    Ok(())
}

/// Runs a daemon's `main` on a multi-threaded runtime and returns what it returned. Dropping the
/// runtime would wait for every worker, and one may never return (sled flushes when its last
/// handle drops, and on a failed disk that flush can wait for ever): the runtime is shut down
/// with a timeout instead, so a daemon that stopped, or failed, always ends.
fn run_daemon(
    main: impl std::future::Future<Output = anyhow::Result<ExitCode>>,
) -> anyhow::Result<ExitCode> {
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()
        .context("starting the async runtime")?;
    let result = runtime.block_on(main);
    runtime.shutdown_timeout(RUNTIME_STOP);
    result
}

/// Raises the open-files limit to the hard limit before a daemon opens anything, and logs the
/// outcome. A daemon that cannot raise it still runs, with the limit it has.
fn raise_open_files_limit() {
    match yarn_security::raise_open_files_limit() {
        Ok(limit) => tracing::info!(
            previous_soft = limit.previous_soft,
            soft = limit.soft,
            hard = limit.hard,
            "open-files limit set to the hard limit"
        ),
        Err(err) => tracing::warn!(%err, "keeping the open-files limit"),
    }
}
