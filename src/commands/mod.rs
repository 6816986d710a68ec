//! Adapters from parsed command lines to the crates that do the work.

mod bench;
mod conf;
mod minicluster;
mod nodemanager;
mod pending;
mod pki;
mod queue;
mod resourcemanager;
mod rmadmin;

use std::process::ExitCode;

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
        Command::Application(_) => Ok(pending::report("application", pending::APPLICATIONS)),
        Command::Node(_) => Ok(pending::report("node", pending::APPLICATIONS)),
        Command::Queue(args) => queue::run(conf_dir, args),
        Command::Dshell(_) => Ok(pending::report("dshell", pending::APPLICATIONS)),
        Command::Pi(_) => Ok(pending::report("pi", pending::APPLICATIONS)),
        Command::Chaos(_) => Ok(pending::report("chaos", pending::CHAOS)),
        Command::Bench(command) => bench::run(command),
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
