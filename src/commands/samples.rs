//! `yarn-ha dshell` and `yarn-ha pi`, and the ApplicationMaster and map processes the cluster
//! starts for them: adapters to `yarn_applications::{dshell, pi}`.

use std::path::{Path, PathBuf};
use std::process::ExitCode;

use anyhow::Context;
use yarn_applications::dshell::{self, DshellOptions};
use yarn_applications::pi::{self, PiAmOptions, PiMapTask, PiOptions};
use yarn_conf::Configuration;

/// Runs a distributed-shell job and waits for it: exit 0 only when it FINISHED SUCCEEDED with
/// every container successful, 1 otherwise, 2 for bad options.
pub fn dshell(conf_dir: Option<&Path>, args: &[String]) -> anyhow::Result<ExitCode> {
    let options = match DshellOptions::parse_args(args) {
        Ok(options) => options,
        Err(err) => return Ok(usage_error("dshell", &err)),
    };
    let (dir, conf) = client_conf(conf_dir, "dshell")?;
    let exe = current_exe()?;
    let mut stdout = std::io::stdout().lock();
    match dshell::run_client(&dir, &conf, &exe, &options, &mut stdout) {
        Ok(outcome) if outcome.succeeded() => Ok(ExitCode::SUCCESS),
        Ok(_) => Ok(ExitCode::FAILURE),
        Err(err) => {
            eprintln!("dshell: {err}");
            Ok(ExitCode::FAILURE)
        }
    }
}

/// Runs the pi example and prints its estimate: exit 0 only when it FINISHED SUCCEEDED.
pub fn pi(conf_dir: Option<&Path>, args: &[String]) -> anyhow::Result<ExitCode> {
    let options = match PiOptions::parse_args(args) {
        Ok(options) => options,
        Err(err) => return Ok(usage_error("pi", &err)),
    };
    let (dir, conf) = client_conf(conf_dir, "pi")?;
    let exe = current_exe()?;
    let mut stdout = std::io::stdout().lock();
    match pi::run_pi(&dir, &conf, &exe, &options, &mut stdout) {
        Ok(outcome) if outcome.succeeded() => Ok(ExitCode::SUCCESS),
        Ok(_) => Ok(ExitCode::FAILURE),
        Err(err) => {
            eprintln!("pi: {err}");
            Ok(ExitCode::FAILURE)
        }
    }
}

/// The distributed shell's ApplicationMaster, in the container the ResourceManager launched.
pub fn dshell_am(conf_dir: Option<&Path>, args: &[String]) -> anyhow::Result<ExitCode> {
    let options = DshellOptions::parse_args(args)?;
    let (_, conf) = client_conf(conf_dir, "dshell-am")?;
    dshell::run_application_master(&conf, &options)?;
    Ok(ExitCode::SUCCESS)
}

/// The pi example's ApplicationMaster.
pub fn pi_am(conf_dir: Option<&Path>, args: &[String]) -> anyhow::Result<ExitCode> {
    let options = PiAmOptions::parse_am_args(args)?;
    let (dir, conf) = client_conf(conf_dir, "pi-am")?;
    let exe = current_exe()?;
    pi::run_pi_application_master(&dir, &conf, &exe, &options)?;
    Ok(ExitCode::SUCCESS)
}

/// One pi map: counts its window and records the result for the ApplicationMaster.
pub fn pi_map(args: &[String]) -> anyhow::Result<ExitCode> {
    let task = PiMapTask::parse_args(args)?;
    task.run(&mut std::io::stdout().lock())?;
    Ok(ExitCode::SUCCESS)
}

fn client_conf(conf_dir: Option<&Path>, verb: &str) -> anyhow::Result<(PathBuf, Configuration)> {
    let dir = conf_dir.with_context(|| {
        format!("{verb} needs a configuration directory: pass --conf-dir DIR or set YARN_CONF_DIR")
    })?;
    let conf = Configuration::load_dir(dir)?;
    Ok((dir.to_path_buf(), conf))
}

fn current_exe() -> anyhow::Result<PathBuf> {
    std::env::current_exe().context("finding the yarn-ha executable the ApplicationMaster runs")
}

fn usage_error(verb: &str, err: &yarn_applications::Error) -> ExitCode {
    eprintln!("yarn-ha {verb}: {err}");
    ExitCode::from(2)
}
