//! `yarn-ha minicluster init|start|restart`: a local cluster of real daemon processes, run by
//! `yarn_minicluster`.

use std::path::Path;
use std::process::ExitCode;

use anyhow::Context;
use yarn_minicluster::{ClusterManifest, ClusterState, DaemonRecord, StartEvent};

use crate::cli::{MiniclusterCommand, MiniclusterInitArgs};

/// Runs one `minicluster` subcommand. `start` blocks until SIGINT, SIGTERM or SIGHUP and exits
/// 0 once every daemon has stopped.
pub fn run(command: MiniclusterCommand) -> anyhow::Result<ExitCode> {
    match command {
        MiniclusterCommand::Init(args) => init(&args),
        MiniclusterCommand::Start(args) => start(&args.dir),
        MiniclusterCommand::Demo => demo(),
        MiniclusterCommand::Restart(args) => {
            let daemon = yarn_minicluster::restart(&args.dir, &args.id)?;
            println!(
                "restarted {}: pid {}, start #{}, log {}",
                daemon.id,
                pid(&daemon),
                daemon.starts,
                daemon.log_file.display()
            );
            Ok(ExitCode::SUCCESS)
        }
    }
}

/// Runs the failover demo; exit 0 only when the job finished SUCCEEDED with every container
/// successful and none repeated.
fn demo() -> anyhow::Result<ExitCode> {
    let exe = std::env::current_exe().context("finding the yarn-ha executable to run daemons")?;
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
        .context("creating the demo's runtime")?;
    let mut stdout = std::io::stdout();
    let summary = runtime.block_on(yarn_minicluster::run_demo(&exe, &mut stdout))?;
    if summary.succeeded() {
        println!("demo passed: the job survived the loss of its ResourceManager");
        Ok(ExitCode::SUCCESS)
    } else {
        println!("demo FAILED: the job did not finish SUCCEEDED with every container");
        Ok(ExitCode::FAILURE)
    }
}

fn init(args: &MiniclusterInitArgs) -> anyhow::Result<ExitCode> {
    let options = yarn_minicluster::LayoutOptions {
        site: args.site.clone(),
        ..Default::default()
    };
    let manifest = yarn_minicluster::init_with(&args.dir, args.rms, args.nms, &options)?;
    let base = manifest.base_dir.display();
    println!(
        "created a minicluster of {} ResourceManager(s) and {} NodeManager(s) in {base}",
        args.rms, args.nms
    );
    println!("  pki:          {}", manifest.pki_dir.display());
    for daemon in &manifest.daemons {
        println!(
            "  {:<13} {}",
            format!("{}:", daemon.id),
            daemon.conf_dir.display()
        );
    }
    println!("  client conf:  {}", manifest.client_conf_dir.display());
    println!("  logs:         {}", manifest.logs_dir.display());
    println!(
        "  manifest:     {}",
        ClusterManifest::path_in(&manifest.base_dir).display()
    );
    println!("start it with:");
    println!("  yarn-ha minicluster start --dir {base}");
    println!("and talk to it with:");
    println!(
        "  YARN_CONF_DIR={} yarn-ha rmadmin -getAllServiceState",
        manifest.client_conf_dir.display()
    );
    Ok(ExitCode::SUCCESS)
}

fn start(dir: &Path) -> anyhow::Result<ExitCode> {
    let exe = std::env::current_exe().context("finding the yarn-ha executable to run daemons")?;
    let mut started: Option<ClusterState> = None;
    yarn_minicluster::start(dir, &exe, |event| match event {
        StartEvent::Started(state) => {
            println!(
                "started {} daemon(s) of {}:",
                state.daemons.len(),
                state.base_dir.display()
            );
            for daemon in &state.daemons {
                println!(
                    "  {:<6} pid {:<8} log {}",
                    daemon.id,
                    pid(daemon),
                    daemon.log_file.display()
                );
            }
            println!(
                "state: {}; stop with Ctrl-C or `kill {}`",
                ClusterState::path_in(&state.base_dir).display(),
                std::process::id()
            );
            started = Some(state);
        }
        StartEvent::LeaderElected(leader) => {
            println!("leader: {} (term {})", leader.rm_id, leader.term);
            print_web_addresses(started.as_ref());
        }
        StartEvent::NoLeader { waited } => {
            println!(
                "no ResourceManager became active within {}s; the daemons keep running, \
                 see their logs",
                waited.as_secs()
            );
            print_web_addresses(started.as_ref());
        }
        StartEvent::Stopped(state) => {
            println!("stopped the minicluster in {}:", state.base_dir.display());
            for daemon in &state.daemons {
                let how = daemon
                    .last_exit
                    .map_or_else(|| "never ran".to_owned(), |exit| exit.to_string());
                println!("  {:<6} {}", daemon.id, how);
            }
        }
    })?;
    Ok(ExitCode::SUCCESS)
}

fn print_web_addresses(state: Option<&ClusterState>) {
    let Some(state) = state else {
        return;
    };
    println!("web UIs:");
    for daemon in &state.daemons {
        if let Some(webapp) = daemon.addresses.get("webapp") {
            println!("  {:<6} {webapp}", daemon.id);
        }
    }
}

/// The pid of a running daemon, or `-` for one without a process.
fn pid(daemon: &DaemonRecord) -> String {
    daemon
        .pid
        .map_or_else(|| "-".to_owned(), |pid| pid.to_string())
}
