//! The supervisor with stand-in daemons (`/bin/sh` scripts): children start and are recorded,
//! exits are recorded and never answered with a restart, restart requests start a daemon again,
//! and shutdown leaves no process behind.

use std::collections::BTreeMap;
use std::future::Future;
use std::path::{Path, PathBuf};
use std::time::Duration;

use tokio::sync::oneshot;
use tokio::task::JoinHandle;
use tokio::time::Instant;
use yarn_minicluster::{
    ClusterState, DaemonExit, DaemonRole, DaemonSpec, DaemonState, MiniCluster,
};
use yarn_nodemanager::executor::{Signal, process_exists};

const DEADLINE: Duration = Duration::from_secs(20);
const POLL: Duration = Duration::from_millis(20);

fn sh(base: &Path, role: DaemonRole, id: &str, script: &str) -> DaemonSpec {
    DaemonSpec {
        role,
        id: id.to_owned(),
        program: PathBuf::from("/bin/sh"),
        args: vec!["-c".into(), script.into()],
        conf_dir: base.join(id).join("conf"),
        log_file: base.join("logs").join(format!("{id}.log")),
        addresses: BTreeMap::from([("admin".to_owned(), format!("127.0.0.1:1{id}"))]),
        env: BTreeMap::new(),
        cgroup: None,
    }
}

/// Polls `cluster.json` until `ready` holds, and returns that state.
async fn must_see(base: &Path, why: &str, ready: impl Fn(&ClusterState) -> bool) -> ClusterState {
    let deadline = Instant::now() + DEADLINE;
    loop {
        let state = ClusterState::read(base).expect("cluster.json is readable at all times");
        if ready(&state) {
            return state;
        }
        assert!(
            Instant::now() < deadline,
            "timed out waiting until {why}: {state:#?}"
        );
        tokio::time::sleep(POLL).await;
    }
}

async fn must_be_gone(pid: u32) {
    let deadline = Instant::now() + DEADLINE;
    while process_exists(pid) {
        assert!(Instant::now() < deadline, "pid {pid} still exists");
        tokio::time::sleep(POLL).await;
    }
}

async fn must_log(file: &Path, text: &str) {
    let deadline = Instant::now() + DEADLINE;
    loop {
        let log = std::fs::read_to_string(file).unwrap_or_default();
        if log.contains(text) {
            return;
        }
        assert!(
            Instant::now() < deadline,
            "{} never got {text:?}: {log}",
            file.display()
        );
        tokio::time::sleep(POLL).await;
    }
}

/// Runs the supervisor in a task until the returned sender fires.
fn supervise(
    cluster: MiniCluster,
) -> (
    oneshot::Sender<()>,
    JoinHandle<anyhow::Result<ClusterState>>,
) {
    let (stop, stopped) = oneshot::channel::<()>();
    let shutdown = async {
        let _ = stopped.await;
    };
    (stop, tokio::spawn(cluster.run(shutdown)))
}

async fn restart(base: &Path, id: &str) -> anyhow::Result<yarn_minicluster::DaemonRecord> {
    let (base, id) = (base.to_owned(), id.to_owned());
    tokio::task::spawn_blocking(move || yarn_minicluster::restart(&base, &id))
        .await
        .expect("the restart client does not panic")
}

fn ready() -> impl Future<Output = ()> {
    std::future::ready(())
}

#[tokio::test]
async fn daemons_are_recorded_exits_are_not_restarted_and_restart_brings_one_back() {
    let dir = tempfile::tempdir().unwrap();
    let base = dir.path();
    let client_conf = base.join("client/conf");
    let specs = vec![
        sh(base, DaemonRole::ResourceManager, "rm1", "exec sleep 30"),
        sh(base, DaemonRole::ResourceManager, "rm2", "exec sleep 30"),
        sh(
            base,
            DaemonRole::NodeManager,
            "nm1",
            "echo nm1 says $((40 + 2)); exit 3",
        ),
    ];
    let cluster = MiniCluster::launch(base, &client_conf, specs, Duration::from_secs(10))
        .await
        .unwrap();

    // --- every child is started and recorded
    let launched = ClusterState::read(base).unwrap();
    assert_eq!(&launched, cluster.state());
    assert_eq!(launched.supervisor_pid, Some(std::process::id()));
    assert_eq!(launched.client_conf_dir, client_conf);
    assert_eq!(launched.ids(), "rm1, rm2, nm1");
    let rm1 = launched.daemon("rm1").unwrap().clone();
    let rm2_pid = launched.daemon("rm2").unwrap().pid.unwrap();
    for id in ["rm1", "rm2"] {
        let record = launched.daemon(id).unwrap();
        assert_eq!(record.state, DaemonState::Running, "{id}");
        assert_eq!(record.starts, 1, "{id}");
        assert!(process_exists(record.pid.unwrap()), "{id}");
        assert_eq!(record.addresses["admin"], format!("127.0.0.1:1{id}"));
    }
    let (stop, supervisor) = supervise(cluster);

    // --- a daemon that exits on its own is recorded with its status and stays down
    let state = must_see(base, "nm1 exited", |s| {
        s.daemon("nm1").unwrap().state == DaemonState::Exited
    })
    .await;
    let nm1 = state.daemon("nm1").unwrap();
    assert_eq!(
        (nm1.pid, nm1.last_exit, nm1.starts),
        (None, Some(DaemonExit::Code(3)), 1)
    );
    // The script computes its words, so the log header quoting the script cannot match.
    must_log(&nm1.log_file, "nm1 says 42").await;

    // --- a killed daemon is recorded as killed, the others keep their processes
    Signal::Kill.send(rm2_pid).unwrap();
    let state = must_see(base, "rm2 exited", |s| {
        s.daemon("rm2").unwrap().state == DaemonState::Exited
    })
    .await;
    let rm2 = state.daemon("rm2").unwrap();
    assert_eq!(rm2.pid, None);
    assert_eq!(rm2.last_exit, Some(DaemonExit::Signal(libc::SIGKILL)));
    assert_eq!(
        rm2.starts, 1,
        "the supervisor must not restart rm2 by itself"
    );
    assert_eq!(state.daemon("rm1").unwrap(), &rm1);

    // --- restart brings it back as a new process; running and unknown daemons are refused
    let restarted = restart(base, "rm2").await.unwrap();
    assert_eq!(restarted.state, DaemonState::Running);
    assert_eq!(restarted.starts, 2);
    let new_pid = restarted.pid.unwrap();
    assert_ne!(new_pid, rm2_pid);
    assert!(process_exists(new_pid));
    assert_eq!(
        ClusterState::read(base).unwrap().daemon("rm2").unwrap(),
        &restarted
    );
    let log = std::fs::read_to_string(&restarted.log_file).unwrap();
    assert_eq!(
        log.matches("starting rm2: /bin/sh -c exec sleep 30")
            .count(),
        2,
        "{log}"
    );

    let err = format!("{:#}", restart(base, "rm1").await.unwrap_err());
    assert!(err.contains("rm1 is still running as pid"), "{err}");
    let err = format!("{:#}", restart(base, "rm9").await.unwrap_err());
    assert!(
        err.contains("no daemon rm9") && err.contains("rm1, rm2, nm1"),
        "{err}"
    );

    // --- shutdown SIGTERMs every daemon and leaves no process and no socket behind
    stop.send(()).unwrap();
    let stopped = supervisor.await.unwrap().unwrap();
    assert_eq!(ClusterState::read(base).unwrap(), stopped);
    assert_eq!(stopped.supervisor_pid, None);
    assert!(!stopped.control_socket.exists());
    for id in ["rm1", "rm2"] {
        let record = stopped.daemon(id).unwrap();
        assert_eq!(record.state, DaemonState::Stopped, "{id}");
        assert_eq!(record.pid, None, "{id}");
        assert_eq!(
            record.last_exit,
            Some(DaemonExit::Signal(libc::SIGTERM)),
            "{id}"
        );
    }
    assert_eq!(stopped.daemon("nm1").unwrap().state, DaemonState::Exited);
    for pid in [rm1.pid.unwrap(), rm2_pid, new_pid] {
        must_be_gone(pid).await;
    }
}

#[tokio::test]
async fn a_restart_may_add_variables_for_that_start_only() {
    let dir = tempfile::tempdir().unwrap();
    let base = dir.path();
    let mut spec = sh(
        base,
        DaemonRole::ResourceManager,
        "rm1",
        "echo \"start $CHAOS_START mark $CHAOS_MARK\"; exec sleep 30",
    );
    spec.env = BTreeMap::from([
        ("CHAOS_MARK".to_owned(), "base".to_owned()),
        ("CHAOS_START".to_owned(), "1".to_owned()),
    ]);
    let log_file = spec.log_file.clone();
    let cluster = MiniCluster::launch(base, &base.join("client/conf"), vec![spec], DEADLINE)
        .await
        .unwrap();
    let (stop, supervisor) = supervise(cluster);
    must_log(&log_file, "start 1 mark base").await;

    let kill = |base: &Path| {
        let pid = ClusterState::read(base).unwrap().daemon("rm1").unwrap().pid;
        Signal::Kill.send(pid.unwrap()).unwrap();
    };
    kill(base);
    let armed = BTreeMap::from([
        ("CHAOS_MARK".to_owned(), "armed".to_owned()),
        ("CHAOS_START".to_owned(), "2".to_owned()),
    ]);
    let (b, env) = (base.to_owned(), armed.clone());
    tokio::task::spawn_blocking(move || yarn_minicluster::restart_with_env(&b, "rm1", &env))
        .await
        .unwrap()
        .unwrap();
    must_log(&log_file, "start 2 mark armed").await;
    let log = std::fs::read_to_string(&log_file).unwrap();
    assert!(
        log.contains("starting rm1: CHAOS_MARK=armed CHAOS_START=2 /bin/sh"),
        "{log}"
    );

    // The header line is written before the process starts, so it is there once the
    // restart returns: this start has the spec's variables again, not the armed ones.
    kill(base);
    restart(base, "rm1").await.unwrap();
    let log = std::fs::read_to_string(&log_file).unwrap();
    let header = "starting rm1: CHAOS_MARK=base CHAOS_START=1 /bin/sh";
    assert_eq!(log.matches(header).count(), 2, "{log}");
    assert_eq!(log.matches("CHAOS_MARK=armed").count(), 1, "{log}");

    stop.send(()).unwrap();
    supervisor.await.unwrap().unwrap();
}

#[tokio::test]
async fn a_daemon_ignoring_sigterm_is_killed_when_the_stop_timeout_passes() {
    let dir = tempfile::tempdir().unwrap();
    let base = dir.path();
    let specs = vec![
        sh(base, DaemonRole::ResourceManager, "rm1", "exec sleep 30"),
        sh(
            base,
            DaemonRole::ResourceManager,
            "rm2",
            "trap '' TERM; echo ignoring $((10 + 5)); exec sleep 30",
        ),
    ];
    // Long enough for rm1 to die of SIGTERM and be reaped on a loaded machine.
    let cluster = MiniCluster::launch(base, base, specs, Duration::from_secs(3))
        .await
        .unwrap();
    let pids: Vec<u32> = cluster
        .state()
        .daemons
        .iter()
        .map(|d| d.pid.unwrap())
        .collect();
    // SIGTERM must not arrive before the trap is set, or rm2 would just die of it.
    must_log(&base.join("logs/rm2.log"), "ignoring 15").await;

    let stopped = cluster.run(ready()).await.unwrap();
    let exits: Vec<(DaemonState, Option<DaemonExit>)> = stopped
        .daemons
        .iter()
        .map(|d| (d.state, d.last_exit))
        .collect();
    assert_eq!(
        exits,
        [
            (
                DaemonState::Stopped,
                Some(DaemonExit::Signal(libc::SIGTERM))
            ),
            (
                DaemonState::Stopped,
                Some(DaemonExit::Signal(libc::SIGKILL))
            ),
        ]
    );
    for pid in pids {
        must_be_gone(pid).await;
    }
}

#[tokio::test]
async fn launch_refuses_a_second_supervisor_and_leftovers_and_undoes_a_failed_start() {
    let dir = tempfile::tempdir().unwrap();
    let base = dir.path();
    let specs = || {
        vec![sh(
            base,
            DaemonRole::ResourceManager,
            "rm1",
            "exec sleep 30",
        )]
    };
    let first = MiniCluster::launch(base, base, specs(), DEADLINE)
        .await
        .unwrap();

    // --- one supervisor per cluster directory
    let err = MiniCluster::launch(base, base, specs(), DEADLINE)
        .await
        .unwrap_err()
        .to_string();
    assert!(err.contains("already running"), "{err}");
    first.run(ready()).await.unwrap();

    // --- daemons a dead supervisor left running would hold the ports: refuse to start
    let mut stale = ClusterState::read(base).unwrap();
    stale.daemons[0].state = DaemonState::Running;
    stale.daemons[0].pid = Some(std::process::id());
    stale.write().unwrap();
    let err = MiniCluster::launch(base, base, specs(), DEADLINE)
        .await
        .unwrap_err()
        .to_string();
    assert!(
        err.contains(&format!("rm1 (pid {})", std::process::id())) && err.contains("still alive"),
        "{err}"
    );

    // --- a daemon that cannot start undoes the launch: the ones before it are stopped
    let other = tempfile::tempdir().unwrap();
    let base = other.path();
    let mut missing = sh(base, DaemonRole::ResourceManager, "rm2", "");
    missing.program = base.join("no-such-yarn-ha");
    let specs = vec![
        sh(base, DaemonRole::ResourceManager, "rm1", "exec sleep 30"),
        missing,
    ];
    let err = MiniCluster::launch(base, base, specs, DEADLINE)
        .await
        .unwrap_err();
    let err = format!("{err:#}");
    assert!(
        err.contains("starting rm2") && err.contains("no-such-yarn-ha"),
        "{err}"
    );
    let undone = ClusterState::read(base).unwrap();
    let rm1 = undone.daemon("rm1").unwrap();
    assert_eq!(rm1.state, DaemonState::Stopped);
    assert!(rm1.last_exit.is_some(), "rm1 was reaped: {rm1:?}");
    assert_eq!(undone.supervisor_pid, None);
}

#[tokio::test]
async fn duplicate_daemon_ids_are_refused() {
    let dir = tempfile::tempdir().unwrap();
    let base = dir.path();
    let specs = vec![
        sh(base, DaemonRole::ResourceManager, "rm1", "exit 0"),
        sh(base, DaemonRole::NodeManager, "rm1", "exit 0"),
    ];
    let err = MiniCluster::launch(base, base, specs, DEADLINE)
        .await
        .unwrap_err()
        .to_string();
    assert!(err.contains("two daemons are named rm1"), "{err}");
    assert!(!ClusterState::path_in(base).exists());
}

#[tokio::test]
async fn a_daemon_joins_its_cgroup_at_every_start() {
    // A plain directory stands in for the cgroup: the join writes `cgroup.procs` with O_CREAT,
    // so the file holds the pid of the last process that joined.
    let dir = tempfile::tempdir().unwrap();
    let base = dir.path();
    let cgroup = base.join("cgroup");
    std::fs::create_dir(&cgroup).unwrap();
    let mut spec = sh(base, DaemonRole::NodeManager, "nm1", "exec sleep 30");
    spec.cgroup = Some(cgroup.clone());
    let cluster = MiniCluster::launch(base, &base.join("client/conf"), vec![spec], DEADLINE)
        .await
        .unwrap();
    let (stop, supervisor) = supervise(cluster);
    let joined = || {
        std::fs::read_to_string(cgroup.join("cgroup.procs"))
            .unwrap()
            .parse::<u32>()
            .unwrap()
    };
    let first = ClusterState::read(base)
        .unwrap()
        .daemon("nm1")
        .unwrap()
        .pid
        .unwrap();
    assert_eq!(joined(), first);

    Signal::Kill.send(first).unwrap();
    must_see(base, "nm1 exited", |state| {
        state.daemon("nm1").unwrap().state == DaemonState::Exited
    })
    .await;
    let restarted = restart(base, "nm1").await.unwrap().pid.unwrap();
    assert_ne!(restarted, first);
    assert_eq!(joined(), restarted);

    stop.send(()).unwrap();
    supervisor.await.unwrap().unwrap();
}
