//! ResourceManager failover with real processes: `yarn-ha minicluster` runs three replicas as
//! separate `yarn-ha resourcemanager` processes, the tests talk to them over mutual TLS as the
//! harness user with the failover-aware `RmClient`, and the leader dies of a real SIGKILL.
//!
//! What this file proves, end to end through the binary:
//! - every submission the cluster acknowledged before the leader was killed is still listed by
//!   the new leader, and the new leader never hands out an application id again;
//! - a client that keeps trying gets a write through once a new leader serves (the time it took
//!   is printed, never asserted);
//! - the killed replica, started again with `minicluster restart`, rejoins as a STANDBY that
//!   follows the new leader and catches up with its log;
//! - under a burst of concurrent writers, no acknowledged submission is lost across the kill, no
//!   id is acknowledged twice, and the application list holds no duplicate.
//!
//! The in-process tests of the same behaviour are in `rm-ha/tests/replicas/`.

mod common;

use std::collections::BTreeSet;
use std::fs::File;
use std::future::Future;
use std::path::{Path, PathBuf};
use std::process::{Child, Stdio};
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::{Arc, Mutex, PoisonError};
use std::time::Duration;

use tempfile::TempDir;
use tokio::task::JoinSet;
use tokio::time::Instant;
use yarn_client::{Idempotency, RmClient, RmClientConfig, RmService};
use yarn_conf::Configuration;
use yarn_minicluster::{ClusterState, DaemonExit, DaemonRole, DaemonState};
use yarn_nodemanager::executor::Signal;
use yarn_proto::ids::ApplicationId;
use yarn_proto::pb;
use yarn_proto::pb::application_client_protocol_client::ApplicationClientProtocolClient;
use yarn_proto::pb::resource_manager_administration_protocol_client::ResourceManagerAdministrationProtocolClient;

use common::yarn_ha_command;

// ---------------------------------------------------------------------------------------------
// Support: the cluster guard and its helpers
// ---------------------------------------------------------------------------------------------

/// How long any wait may take before the test fails, naming what it waited for.
const DEADLINE: Duration = Duration::from_secs(20);

/// How often a wait checks again.
const POLL: Duration = Duration::from_millis(20);

/// How long the guard waits for a SIGTERMed supervisor: its own stop timeout (10 s) plus room.
const SUPERVISOR_STOP: Duration = Duration::from_secs(15);

/// The replicas every cluster of this file runs.
const RMS: usize = 3;

/// One cluster at a time: the tests run in parallel threads, and two Raft groups with 50 ms
/// heartbeats plus their writers on a two-core machine would mostly test the OS scheduler.
static ONE_CLUSTER_AT_A_TIME: tokio::sync::Mutex<()> = tokio::sync::Mutex::const_new(());

/// Polls `check` until it returns `Some`, failing the test after [`DEADLINE`].
async fn eventually<T, F, Fut>(what: &str, check: F) -> T
where
    F: FnMut() -> Fut,
    Fut: Future<Output = Option<T>>,
{
    yarn_test_support::poll::eventually(what, DEADLINE, check).await
}

/// Runs a short `yarn-ha` command to its end and fails the test unless it exits 0.
async fn run_yarn_ha(args: Vec<String>) {
    let what = args.join(" ");
    let mut command = tokio::process::Command::from(yarn_ha_command());
    let out = command
        .args(&args)
        .output()
        .await
        .unwrap_or_else(|e| panic!("running yarn-ha {what}: {e}"));
    assert!(
        out.status.success(),
        "yarn-ha {what} ended with {}: {}",
        out.status,
        String::from_utf8_lossy(&out.stderr)
    );
}

fn path(path: &Path) -> String {
    path.to_str().expect("temporary paths are UTF-8").to_owned()
}

/// A running `yarn-ha minicluster start` of three ResourceManagers and the clients to talk to
/// them as the harness user.
///
/// Dropping it unstopped (a failed test) SIGTERMs the supervisor and waits for it within
/// [`SUPERVISOR_STOP`]; if it is still there then, it is SIGKILLed together with the process
/// groups of every daemon `cluster.json` records as running. After a panic the cluster
/// directory is kept for its logs.
struct Cluster {
    base: PathBuf,
    supervisor: Option<Child>,
    /// ApplicationClientProtocol with failover.
    client: Arc<RmClient>,
    /// The admin protocol, for calls aimed at one replica.
    admin: RmClient,
    rm_ids: Vec<String>,
    dir: Option<TempDir>,
    _turn: tokio::sync::MutexGuard<'static, ()>,
}

impl Cluster {
    /// Lays out a cluster with `minicluster init`, starts its supervisor and waits until every
    /// ResourceManager process runs and one of them serves as leader.
    async fn start() -> Cluster {
        Self::start_configured(&[], |_| ()).await
    }

    /// [`Cluster::start`] with `site` in every `yarn-site.xml`, running `prepare` on the
    /// laid-out cluster directory before any daemon starts.
    async fn start_configured(site: &[(&str, &str)], prepare: impl FnOnce(&Path)) -> Cluster {
        let turn = ONE_CLUSTER_AT_A_TIME.lock().await;
        let dir = tempfile::tempdir().expect("a temporary directory");
        let base = dir.path().join("cluster");
        let mut init: Vec<String> = vec![
            "minicluster".into(),
            "init".into(),
            "--dir".into(),
            path(&base),
            "--rms".into(),
            RMS.to_string(),
            "--nms".into(),
            "0".into(),
        ];
        for (name, value) in site {
            init.extend(["--set".to_owned(), format!("{name}={value}")]);
        }
        run_yarn_ha(init).await;
        prepare(&base);
        let log = File::create(base.join("supervisor.log")).expect("the supervisor's log file");
        let supervisor = yarn_ha_command()
            .args(["minicluster", "start", "--dir", &path(&base)])
            .stdin(Stdio::null())
            .stdout(log.try_clone().expect("a second handle of the log file"))
            .stderr(log)
            .spawn()
            .expect("yarn-ha minicluster start runs");
        let rm_ids: Vec<String> = (1..=RMS).map(|i| format!("rm{i}")).collect();
        let mut cluster = Cluster {
            client: Arc::new(client(&base, RmService::Client)),
            admin: client(&base, RmService::Admin),
            base,
            supervisor: Some(supervisor),
            rm_ids,
            dir: Some(dir),
            _turn: turn,
        };
        cluster.wait_until_every_rm_runs().await;
        cluster.leader(None).await;
        cluster
    }

    async fn wait_until_every_rm_runs(&mut self) {
        let deadline = Instant::now() + DEADLINE;
        loop {
            let supervisor = self.supervisor.as_mut().expect("a supervisor");
            if let Some(status) = supervisor.try_wait().expect("checking on the supervisor") {
                panic!(
                    "minicluster start ended with {status}: {}",
                    std::fs::read_to_string(self.base.join("supervisor.log")).unwrap_or_default()
                );
            }
            // cluster.json appears once the supervisor has launched everything.
            if let Ok(state) = ClusterState::read(&self.base) {
                let running = state
                    .daemons
                    .iter()
                    .filter(|d| d.role == DaemonRole::ResourceManager)
                    .filter(|d| d.state == DaemonState::Running && d.pid.is_some())
                    .count();
                if running == RMS {
                    return;
                }
            }
            assert!(
                Instant::now() < deadline,
                "timed out after {DEADLINE:?} waiting for {RMS} ResourceManagers to run"
            );
            tokio::time::sleep(POLL).await;
        }
    }

    /// The state the supervisor last recorded.
    fn state(&self) -> ClusterState {
        ClusterState::read(&self.base).expect("cluster.json is readable while the cluster runs")
    }

    /// The pid of the running replica `rm_id`.
    fn pid(&self, rm_id: &str) -> u32 {
        let state = self.state();
        let daemon = state.daemon(rm_id).expect("every rm id is a daemon");
        daemon
            .pid
            .unwrap_or_else(|| panic!("{rm_id} does not run: {daemon:?}"))
    }

    /// Replica `rm_id`'s own report of its HA state; `None` when it does not answer.
    async fn status_of(&self, rm_id: &str) -> Option<pb::HaServiceStatusResponseProto> {
        self.admin
            .call_on(rm_id, |channel| async move {
                ResourceManagerAdministrationProtocolClient::new(channel)
                    .get_service_status(pb::HaServiceStatusRequestProto {})
                    .await
            })
            .await
            .ok()
    }

    /// Waits until a replica other than `not` reports ACTIVE, and returns its rm id.
    async fn leader(&self, not: Option<&str>) -> String {
        eventually("a replica to report ACTIVE", || async {
            for rm_id in &self.rm_ids {
                if Some(rm_id.as_str()) == not {
                    continue;
                }
                let active = self
                    .status_of(rm_id)
                    .await
                    .is_some_and(|s| s.state() == pb::HaServiceStateProto::Active);
                if active {
                    return Some(rm_id.clone());
                }
            }
            None
        })
        .await
    }

    /// SIGKILLs replica `rm_id` and returns the instant of the kill.
    fn kill(&self, rm_id: &str) -> Instant {
        let pid = self.pid(rm_id);
        Signal::Kill
            .send(pid)
            .unwrap_or_else(|e| panic!("SIGKILL to {rm_id} (pid {pid}): {e}"));
        let killed_at = Instant::now();
        eprintln!("SIGKILLed {rm_id} (pid {pid})");
        killed_at
    }

    /// Waits until `cluster.json` shows `rm_id` dead of SIGKILL.
    async fn wait_until_killed(&self, rm_id: &str) {
        eventually(&format!("{rm_id} to be recorded as killed"), || async {
            let state = self.state();
            let daemon = state.daemon(rm_id).expect("every rm id is a daemon");
            (daemon.state == DaemonState::Exited).then_some(())
        })
        .await;
        let state = self.state();
        let daemon = state.daemon(rm_id).expect("every rm id is a daemon");
        assert_eq!(daemon.last_exit, Some(DaemonExit::Signal(libc::SIGKILL)));
    }

    /// The ids of every application the leader lists (through the failover-aware client).
    async fn applications(&self) -> Vec<ApplicationId> {
        let reply = self
            .client
            .call(Idempotency::Idempotent, |channel| async move {
                ApplicationClientProtocolClient::new(channel)
                    .get_applications(pb::GetApplicationsRequestProto::default())
                    .await
            })
            .await
            .unwrap_or_else(|e| panic!("GetApplications: {e}"));
        reply
            .applications
            .into_iter()
            .map(|report| {
                let id = report
                    .application_id
                    .expect("a report names its application");
                ApplicationId::try_from(id).expect("the RM reports valid ids")
            })
            .collect()
    }

    /// Stops the cluster as an operator does, with SIGTERM to the supervisor, and checks that
    /// it stopped every daemon and exited 0.
    async fn stop(mut self) {
        let mut supervisor = self.supervisor.take().expect("a running supervisor");
        Signal::Term
            .send(supervisor.id())
            .expect("SIGTERM to the supervisor");
        let deadline = Instant::now() + SUPERVISOR_STOP;
        let status = loop {
            if let Some(status) = supervisor.try_wait().expect("waiting for the supervisor") {
                break status;
            }
            assert!(
                Instant::now() < deadline,
                "the supervisor did not stop within {SUPERVISOR_STOP:?}"
            );
            tokio::time::sleep(POLL).await;
        };
        assert!(status.success(), "minicluster start ended with {status}");
        let stopped = self.state();
        assert_eq!(stopped.supervisor_pid, None);
        for daemon in &stopped.daemons {
            assert_ne!(daemon.state, DaemonState::Running, "{daemon:?}");
            assert_eq!(daemon.pid, None, "{daemon:?}");
        }
    }
}

impl Drop for Cluster {
    fn drop(&mut self) {
        let Some(mut supervisor) = self.supervisor.take() else {
            return;
        };
        // A failed test: stop the cluster as `stop` would, but never hang or leave processes.
        let _ = Signal::Term.send(supervisor.id());
        let deadline = std::time::Instant::now() + SUPERVISOR_STOP;
        let mut exited = false;
        while std::time::Instant::now() < deadline {
            match supervisor.try_wait() {
                Ok(None) => std::thread::sleep(POLL),
                Ok(Some(_)) | Err(_) => {
                    exited = true;
                    break;
                }
            }
        }
        if !exited {
            let _ = supervisor.kill();
            let _ = supervisor.wait();
            if let Ok(state) = ClusterState::read(&self.base) {
                // Each daemon leads its own process group.
                for pid in state.daemons.iter().filter_map(|d| d.pid) {
                    let _ = Signal::Kill.send_to_group(pid);
                }
            }
        }
        if std::thread::panicking() {
            if let Some(dir) = self.dir.take() {
                eprintln!(
                    "kept the cluster directory {} for its logs",
                    dir.keep().display()
                );
            }
        }
    }
}

/// A small tmpfs mounted over a directory, unmounted (lazily, so a straggling process cannot
/// keep it) when dropped. Mounting needs root.
struct Tmpfs {
    dir: PathBuf,
}

impl Tmpfs {
    /// Mounts a tmpfs of `size` (`mount`'s syntax, `4m`) over `dir`, creating it.
    fn mount(dir: &Path, size: &str) -> Result<Tmpfs, String> {
        std::fs::create_dir_all(dir).map_err(|e| format!("creating {}: {e}", dir.display()))?;
        let out = std::process::Command::new("mount")
            .args(["-t", "tmpfs", "-o", &format!("size={size}"), "tmpfs"])
            .arg(dir)
            .output()
            .map_err(|e| format!("running mount: {e}"))?;
        if !out.status.success() {
            return Err(format!(
                "mount -t tmpfs on {} ended with {}: {}",
                dir.display(),
                out.status,
                String::from_utf8_lossy(&out.stderr)
            ));
        }
        Ok(Tmpfs {
            dir: dir.to_owned(),
        })
    }

    /// Grows (or shrinks) the tmpfs to `size` in place, as an operator grows a volume.
    fn resize(&self, size: &str) {
        let status = std::process::Command::new("mount")
            .args(["-o", &format!("remount,size={size}")])
            .arg(&self.dir)
            .status()
            .expect("running mount -o remount");
        assert!(
            status.success(),
            "remounting {} with {size}",
            self.dir.display()
        );
    }

    /// Writes a file of zeros into the tmpfs until it is full.
    fn fill(&self) -> PathBuf {
        use std::io::Write;
        let path = self.dir.join("filler");
        let mut file = File::create(&path).expect("create the filler");
        let block = vec![0_u8; 64 * 1024];
        loop {
            match file.write(&block) {
                Ok(0) => break,
                Ok(_) => {}
                Err(err) if err.raw_os_error() == Some(libc::ENOSPC) => break,
                Err(err) => panic!("filling {}: {err}", path.display()),
            }
        }
        path
    }
}

impl Drop for Tmpfs {
    fn drop(&mut self) {
        let _ = std::process::Command::new("umount")
            .arg("-l")
            .arg(&self.dir)
            .status();
    }
}

/// The failover-aware client of `service` with the harness user's identity from the cluster's
/// client configuration, and short failover pauses so that a test waits on the cluster, not on
/// its own back-off.
fn client(base: &Path, service: RmService) -> RmClient {
    let mut conf =
        Configuration::load_dir(&base.join("client/conf")).expect("the client configuration");
    conf.set("yarn.client.failover-sleep-base-ms", "20");
    conf.set("yarn.client.failover-sleep-max-ms", "200");
    conf.set("yarn.client.failover-max-attempts", "50");
    let mut config = RmClientConfig::from_conf(&conf).expect("a valid client configuration");
    // A replica that takes this long is as good as gone; try another one.
    config.call_timeout = Duration::from_secs(3);
    RmClient::new(&config, service)
}

/// Creates and submits one application named `name`; returns its id once the submission is
/// acknowledged.
async fn submit(client: &RmClient, name: &str) -> Result<ApplicationId, yarn_client::Error> {
    submit_context(
        client,
        pb::ApplicationSubmissionContextProto {
            application_name: Some(name.to_owned()),
            ..Default::default()
        },
    )
    .await
}

/// Creates an application and submits it with `context` (its id filled in); returns its id
/// once the submission is acknowledged.
///
/// GetNewApplication is not idempotent (a resend may allocate another id), so it is never resent
/// once its outcome is unknown; SubmitApplication dedupes by the application id, so it is.
async fn submit_context(
    client: &RmClient,
    context: pb::ApplicationSubmissionContextProto,
) -> Result<ApplicationId, yarn_client::Error> {
    let reply = client
        .call(Idempotency::NotIdempotent, |channel| async move {
            ApplicationClientProtocolClient::new(channel)
                .get_new_application(pb::GetNewApplicationRequestProto {})
                .await
        })
        .await?;
    let id = reply
        .application_id
        .expect("GetNewApplication answers with an id");
    let context = pb::ApplicationSubmissionContextProto {
        application_id: Some(id),
        ..context
    };
    client
        .call(Idempotency::Idempotent, |channel| {
            let request = pb::SubmitApplicationRequestProto {
                application_submission_context: Some(context.clone()),
            };
            async move {
                ApplicationClientProtocolClient::new(channel)
                    .submit_application(request)
                    .await
            }
        })
        .await?;
    Ok(ApplicationId::try_from(id).expect("the RM hands out valid ids"))
}

// ---------------------------------------------------------------------------------------------
// Tests
// ---------------------------------------------------------------------------------------------

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn sigkill_of_the_leader_loses_nothing_and_it_rejoins_as_follower() {
    let cluster = Cluster::start().await;
    let mut acknowledged = Vec::new();
    for i in 0..10 {
        let id = submit(&cluster.client, &format!("before-{i}"))
            .await
            .unwrap_or_else(|e| panic!("submission {i} to a healthy cluster: {e}"));
        acknowledged.push(id);
    }
    let old = cluster.leader(None).await;

    // --- the leader dies; a client that keeps trying gets a write through the new leader
    let killed_at = cluster.kill(&old);
    let mut failed_tries = 0;
    let later = loop {
        match submit(&cluster.client, "after-failover").await {
            Ok(id) => break id,
            Err(err) => {
                failed_tries += 1;
                assert!(
                    killed_at.elapsed() < DEADLINE,
                    "no write succeeded within {DEADLINE:?} of killing {old}: {err}"
                );
            }
        }
    };
    let failover = killed_at.elapsed();
    eprintln!(
        "failover: the first write after SIGKILL of {old} succeeded after {} ms \
         ({failed_tries} failed tries before it)",
        failover.as_millis()
    );

    // --- nothing acknowledged is lost, and no id is handed out twice
    let new = cluster.leader(Some(&old)).await;
    let listed: BTreeSet<ApplicationId> = cluster.applications().await.into_iter().collect();
    for id in acknowledged.iter().chain([&later]) {
        assert!(
            listed.contains(id),
            "{id} was acknowledged but {new} does not list it"
        );
    }
    for id in &acknowledged {
        assert_eq!(
            id.cluster_timestamp, later.cluster_timestamp,
            "{id} vs {later}"
        );
        assert!(id < &later, "{new} reissued an id: {later} after {id}");
    }
    let leader_applied = cluster
        .status_of(&new)
        .await
        .expect("the new leader reports its state")
        .last_applied_index;

    // --- the old leader comes back as a follower of the new one and catches up
    cluster.wait_until_killed(&old).await;
    run_yarn_ha(vec![
        "minicluster".into(),
        "restart".into(),
        "--dir".into(),
        path(&cluster.base),
        old.clone(),
    ])
    .await;
    eventually(&format!("{old} to run again"), || async {
        let state = cluster.state();
        let daemon = state.daemon(&old).expect("every rm id is a daemon");
        (daemon.state == DaemonState::Running && daemon.starts == 2).then_some(())
    })
    .await;
    let rejoined = eventually(
        &format!("{old} to follow {new} at index {leader_applied} or later"),
        || async {
            let status = cluster.status_of(&old).await?;
            (status.state() == pb::HaServiceStateProto::Standby
                && status.leader_rm_id == new
                && status.last_applied_index >= leader_applied)
                .then_some(status)
        },
    )
    .await;
    assert_eq!(rejoined.rm_id, old);
    eprintln!(
        "{old} rejoined as STANDBY of {new} at applied index {} (term {})",
        rejoined.last_applied_index, rejoined.current_term
    );

    cluster.stop().await;
}

/// What the concurrent writers of the burst test share.
#[derive(Default)]
struct Burst {
    stop: AtomicBool,
    /// Acknowledged submissions: the id, when the write began and when it was acknowledged.
    /// Short sections only, never held across an `.await`.
    acknowledged: Mutex<Vec<(ApplicationId, Instant, Instant)>>,
    failures: AtomicUsize,
    /// The last failure, for the message of a test that times out.
    last_failure: Mutex<Option<String>>,
}

impl Burst {
    fn acknowledged(&self) -> Vec<(ApplicationId, Instant, Instant)> {
        self.acknowledged
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .clone()
    }

    /// Submits applications until told to stop, recording only acknowledged ones. A failed
    /// write (outcome unknown, attempts exhausted) is counted and left behind.
    async fn write(self: Arc<Self>, client: Arc<RmClient>, writer: usize) {
        let mut n = 0;
        while !self.stop.load(Ordering::Relaxed) {
            let began = Instant::now();
            match submit(&client, &format!("burst-{writer}-{n}")).await {
                Ok(id) => self
                    .acknowledged
                    .lock()
                    .unwrap_or_else(PoisonError::into_inner)
                    .push((id, began, Instant::now())),
                Err(err) => {
                    self.failures.fetch_add(1, Ordering::Relaxed);
                    *self
                        .last_failure
                        .lock()
                        .unwrap_or_else(PoisonError::into_inner) = Some(err.to_string());
                }
            }
            n += 1;
        }
    }

    async fn wait_for(&self, count: usize) {
        eventually(&format!("{count} acknowledged submissions"), || async {
            (self.acknowledged().len() >= count).then_some(())
        })
        .await;
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn sigkill_during_a_burst_of_writes_keeps_every_acknowledged_write() {
    const WRITERS: usize = 8;
    const BEFORE: usize = 40;
    const AFTER: usize = 40;
    let cluster = Cluster::start().await;
    let burst = Arc::new(Burst::default());
    let mut writers = JoinSet::new();
    for writer in 0..WRITERS {
        writers.spawn(burst.clone().write(cluster.client.clone(), writer));
    }

    burst.wait_for(BEFORE).await;
    let old = cluster.leader(None).await;
    let killed_at = cluster.kill(&old);
    let at_kill = burst.acknowledged().len();
    burst.wait_for(at_kill + AFTER).await;
    burst.stop.store(true, Ordering::Relaxed);
    tokio::time::timeout(DEADLINE, async {
        while let Some(joined) = writers.join_next().await {
            joined.expect("a writer does not panic");
        }
    })
    .await
    .expect("the writers stop within the deadline");
    cluster.wait_until_killed(&old).await;

    let acknowledged = burst.acknowledged();
    let first_after_kill = acknowledged
        .iter()
        .filter(|(_, began, _)| *began > killed_at)
        .map(|(_, _, acked)| acked.duration_since(killed_at))
        .min()
        .expect("writes begun after the kill were acknowledged");
    eprintln!(
        "failover under load: the first write begun after SIGKILL of {old} was acknowledged \
         {} ms after it; {} acknowledged in all ({at_kill} by the kill), {} failed writes \
         (last: {})",
        first_after_kill.as_millis(),
        acknowledged.len(),
        burst.failures.load(Ordering::Relaxed),
        burst
            .last_failure
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .as_deref()
            .unwrap_or("none")
    );

    // --- no id was acknowledged twice: the new leader never reissued one
    let acknowledged_ids: BTreeSet<ApplicationId> =
        acknowledged.iter().map(|(id, _, _)| *id).collect();
    assert_eq!(
        acknowledged_ids.len(),
        acknowledged.len(),
        "an application id was acknowledged to two writers"
    );

    // --- every acknowledged submission is listed, once
    let new = cluster.leader(Some(&old)).await;
    let listed = cluster.applications().await;
    let listed_ids: BTreeSet<ApplicationId> = listed.iter().copied().collect();
    assert_eq!(
        listed_ids.len(),
        listed.len(),
        "{new} lists an application twice"
    );
    let missing: Vec<String> = acknowledged_ids
        .difference(&listed_ids)
        .map(ToString::to_string)
        .collect();
    assert!(
        missing.is_empty(),
        "{new} lost acknowledged submissions: {}",
        missing.join(", ")
    );

    cluster.stop().await;
}

/// Runs a short `yarn-ha` command with the harness user's configuration and returns its exit
/// status, stdout and stderr.
async fn yarn_ha_as_user(cluster: &Cluster, args: &[&str]) -> (bool, String, String) {
    let conf_dir = cluster.state().client_conf_dir;
    let mut command = tokio::process::Command::from(yarn_ha_command());
    let out = command
        .arg("--conf-dir")
        .arg(&conf_dir)
        .args(args)
        .output()
        .await
        .unwrap_or_else(|e| panic!("running yarn-ha {args:?}: {e}"));
    (
        out.status.success(),
        String::from_utf8_lossy(&out.stdout).into_owned(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

/// Writes `properties` as every replica's `capacity-scheduler.xml`, as an operator edits the
/// file on each RM host before `-refreshQueues`.
fn write_queues(cluster: &Cluster, properties: &[(&str, &str)]) {
    let xml = yarn_conf::writer::site_xml(properties.iter().copied());
    for rm_id in &cluster.rm_ids {
        let state = cluster.state();
        let daemon = state.daemon(rm_id).expect("every rm id is a daemon");
        std::fs::write(daemon.conf_dir.join("capacity-scheduler.xml"), &xml).unwrap();
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn refresh_queues_is_validated_committed_and_survives_a_failover() {
    let cluster = Cluster::start().await;
    let status = |queue: &'static str| {
        let cluster = &cluster;
        async move {
            eventually(&format!("queue -status {queue} to answer"), || async {
                let (ok, out, err) = yarn_ha_as_user(cluster, &["queue", "-status", queue]).await;
                if !ok {
                    eprintln!("queue -status {queue}: {err}");
                }
                ok.then_some(out)
            })
            .await
        }
    };
    // The first leader committed the file every replica started with.
    let out = status("default").await;
    assert!(out.contains("\tQueue Path : root.default\n"), "{out}");
    assert!(out.contains("\tCapacity : 100.0%\n"), "{out}");
    assert!(out.contains("\tState : RUNNING\n"), "{out}");

    // An invalid file is refused with its reason, and the queues in force keep running.
    write_queues(
        &cluster,
        &[
            ("yarn.scheduler.capacity.root.queues", "default,b"),
            ("yarn.scheduler.capacity.root.default.capacity", "60"),
            ("yarn.scheduler.capacity.root.b.capacity", "50"),
        ],
    );
    let (ok, _, err) = yarn_ha_as_user(&cluster, &["rmadmin", "-refreshQueues"]).await;
    assert!(!ok, "an invalid refresh must fail");
    assert!(
        err.contains("capacity-scheduler.xml") && err.contains("root"),
        "{err}"
    );
    let (ok, _, err) = yarn_ha_as_user(&cluster, &["queue", "-status", "b"]).await;
    assert!(!ok && err.contains('b'), "{err}");
    // So is a file with a key whose promise the scheduler cannot keep, at the key's line.
    write_queues(
        &cluster,
        &[
            ("yarn.scheduler.capacity.root.queues", "default"),
            ("yarn.scheduler.capacity.root.default.capacity", "100"),
            (
                "yarn.scheduler.capacity.root.default.allow-zero-capacity-sum",
                "true",
            ),
        ],
    );
    let (ok, _, err) = yarn_ha_as_user(&cluster, &["rmadmin", "-refreshQueues"]).await;
    assert!(!ok, "a refresh with a refused key must fail");
    assert!(
        err.contains("capacity-scheduler.xml:13:")
            && err.contains(
                "key yarn.scheduler.capacity.root.default.allow-zero-capacity-sum: \
                 value \"true\" is refused"
            ),
        "{err}"
    );

    // A valid one is committed through Raft, and the keys it ignores are named.
    write_queues(
        &cluster,
        &[
            ("yarn.scheduler.capacity.root.queues", "default,b"),
            ("yarn.scheduler.capacity.root.default.capacity", "70"),
            ("yarn.scheduler.capacity.root.b.capacity", "30"),
            ("yarn.scheduler.capacity.root.b.maximum-capacity", "50"),
            (
                "yarn.scheduler.capacity.root.b.acl_submit_applications",
                "alice",
            ),
            (
                "yarn.scheduler.capacity.per-node-heartbeat.maximum-offswitch-assignments",
                "1",
            ),
        ],
    );
    let (ok, out, err) = yarn_ha_as_user(&cluster, &["rmadmin", "-refreshQueues"]).await;
    assert!(ok, "refreshQueues: {out}{err}");
    assert!(
        out.starts_with("committed queue configuration version ")
            && out.contains("capacity-scheduler.xml"),
        "the refresh says what it committed and from which replica's file: {out}"
    );
    assert!(
        out.contains("\nwarning: yarn.scheduler.capacity.per-node-heartbeat.maximum-offswitch-assignments is not honoured"),
        "{out}"
    );
    // Again with the same files: nothing new, and it says so.
    let (ok, again, err) = yarn_ha_as_user(&cluster, &["rmadmin", "-refreshQueues"]).await;
    assert!(ok, "refreshQueues: {again}{err}");
    assert!(
        again.contains("already in force; nothing committed"),
        "{again}"
    );

    // The new leader after a SIGKILL schedules with the refreshed queues: they were replicated,
    // not read again from a file (which the test now breaks on every replica).
    write_queues(
        &cluster,
        &[("yarn.scheduler.capacity.root.queues", "nothing-valid")],
    );
    let old = cluster.leader(None).await;
    cluster.kill(&old);
    cluster.leader(Some(&old)).await;
    let out = status("b").await;
    for line in [
        "\tQueue Path : root.b\n",
        "\tCapacity : 30.0%\n",
        "\tMaximum Capacity : 50.0%\n",
        "\tAbsolute Capacity : 30.0%\n",
        "\tSubmit Applications ACL : alice\n",
    ] {
        assert!(out.contains(line), "missing {line:?} in\n{out}");
    }
    cluster.stop().await;
}

/// A submission naming a missing leaf under a queue that creates queues creates it in the entry
/// that records the submission: a SIGKILL of the leader right after the acknowledgement loses
/// neither, the new leader admits the application into the queue its parent's templates
/// configure, and a second submission finds the queue rather than creating it again.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_auto_created_queue_survives_a_sigkill_of_the_leader_and_is_created_once() {
    let cluster = Cluster::start().await;
    write_queues(
        &cluster,
        &[
            ("yarn.scheduler.capacity.root.queues", "default,users"),
            ("yarn.scheduler.capacity.root.default.capacity", "50"),
            ("yarn.scheduler.capacity.root.users.capacity", "50"),
            (
                "yarn.scheduler.capacity.root.users.auto-queue-creation-v2.enabled",
                "true",
            ),
            (
                "yarn.scheduler.capacity.root.users.auto-queue-creation-v2.leaf-template.\
                 maximum-capacity",
                "40",
            ),
        ],
    );
    let (ok, out, err) = yarn_ha_as_user(&cluster, &["rmadmin", "-refreshQueues"]).await;
    assert!(ok, "refreshQueues: {out}{err}");
    let in_alices_queue = |name: &str| pb::ApplicationSubmissionContextProto {
        application_name: Some(name.to_owned()),
        queue: Some("root.users.alice".to_owned()),
        ..Default::default()
    };
    let first = submit_context(&cluster.client, in_alices_queue("first"))
        .await
        .expect("the submission that creates the queue");
    let old = cluster.leader(None).await;
    cluster.kill(&old);
    cluster.leader(Some(&old)).await;
    let second = submit_context(&cluster.client, in_alices_queue("second"))
        .await
        .expect("the submission that reuses the queue");
    for id in [first, second] {
        let app = id.to_string();
        let report = eventually(&format!("{app} to be admitted"), || async {
            let (ok, out, _) = yarn_ha_as_user(&cluster, &["application", "-status", &app]).await;
            (ok && out.contains("\tState : ACCEPTED\n")).then_some(out)
        })
        .await;
        assert!(report.contains("\tQueue : root.users.alice\n"), "{report}");
    }
    let (ok, out, err) = yarn_ha_as_user(&cluster, &["queue", "-status", "root.users.alice"]).await;
    assert!(ok, "queue -status: {err}");
    assert!(
        out.contains("\tQueue Path : root.users.alice\n")
            && out.contains("\tMaximum Capacity : 40.0%\n"),
        "{out}"
    );
    let leader = cluster.leader(None).await;
    let log_file = cluster
        .state()
        .daemon(&leader)
        .expect("the leader is a daemon")
        .log_file
        .clone();
    let log = std::fs::read_to_string(&log_file).unwrap_or_default();
    assert!(
        !log.contains("Auto-creating queues root.users.alice"),
        "the new leader created the queue again:\n{log}"
    );
    cluster.stop().await;
}

/// Under Hadoop's `QueueConfigurationAutoRefreshPolicy`, editing `capacity-scheduler.xml` is
/// enough: the leader commits the changed file, refuses an invalid one with its reason in the
/// log while the queues in force stay, and commits the next valid edit.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_auto_refresh_policy_commits_edits_of_the_file_and_refuses_invalid_ones() {
    let cluster = Cluster::start_configured(
        &[
            ("yarn.resourcemanager.scheduler.monitor.enable", "true"),
            (
                "yarn.resourcemanager.scheduler.monitor.policies",
                "org.apache.hadoop.yarn.server.resourcemanager.scheduler.capacity.\
                 QueueConfigurationAutoRefreshPolicy",
            ),
            (
                "yarn.scheduler.capacity.queue.auto.refresh.monitoring-interval",
                "200",
            ),
        ],
        |_| (),
    )
    .await;
    let capacity_of = |queue: &'static str| {
        let cluster = &cluster;
        async move {
            let (ok, out, _) = yarn_ha_as_user(cluster, &["queue", "-status", queue]).await;
            ok.then(|| {
                out.lines()
                    .find_map(|line| line.trim().strip_prefix("Capacity : "))
                    .map(str::to_owned)
            })
            .flatten()
        }
    };
    write_queues(
        &cluster,
        &[
            ("yarn.scheduler.capacity.root.queues", "default,b"),
            ("yarn.scheduler.capacity.root.default.capacity", "70"),
            ("yarn.scheduler.capacity.root.b.capacity", "30"),
        ],
    );
    eventually("the edited file to be in force", || async {
        (capacity_of("b").await.as_deref() == Some("30.0%")).then_some(())
    })
    .await;

    // An edit the scheduler refuses is logged with its reason, and nothing changes.
    let refused = "yarn.scheduler.capacity.root.b.allow-zero-capacity-sum";
    write_queues(
        &cluster,
        &[
            ("yarn.scheduler.capacity.root.queues", "default,b,c"),
            ("yarn.scheduler.capacity.root.default.capacity", "50"),
            ("yarn.scheduler.capacity.root.b.capacity", "30"),
            ("yarn.scheduler.capacity.root.c.capacity", "20"),
            (refused, "true"),
        ],
    );
    let leader = cluster.leader(None).await;
    let log_file = cluster
        .state()
        .daemon(&leader)
        .expect("the leader is a daemon")
        .log_file
        .clone();
    eventually("the leader to log why it refused the edit", || async {
        let log = std::fs::read_to_string(&log_file).unwrap_or_default();
        log.lines()
            .any(|line| line.contains("queue auto-refresh refused") && line.contains(refused))
            .then_some(())
    })
    .await;
    assert_eq!(capacity_of("default").await.as_deref(), Some("70.0%"));
    assert_eq!(capacity_of("c").await, None, "root.c was not added");

    // The next valid edit is committed.
    write_queues(
        &cluster,
        &[
            ("yarn.scheduler.capacity.root.queues", "default,b,c"),
            ("yarn.scheduler.capacity.root.default.capacity", "50"),
            ("yarn.scheduler.capacity.root.b.capacity", "30"),
            ("yarn.scheduler.capacity.root.c.capacity", "20"),
        ],
    );
    eventually("the corrected file to be in force", || async {
        (capacity_of("c").await.as_deref() == Some("20.0%")).then_some(())
    })
    .await;
    assert_eq!(capacity_of("default").await.as_deref(), Some("50.0%"));
    cluster.stop().await;
}

/// A replica whose disk fills (ENOSPC on its Raft storage) exits non-zero naming the reason
/// instead of lingering, the others carry on, and once space is freed it restarts and rejoins.
/// Needs root to mount the small tmpfs the replica's storage lives on; elsewhere it checks only
/// that the mount was refused for want of rights.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_replica_whose_disk_fills_exits_with_the_reason_and_rejoins_once_freed() {
    let mut mounted = None;
    let cluster = Cluster::start_configured(&[], |base| {
        mounted = Some(Tmpfs::mount(&base.join("rm2/raft"), "4m"));
    })
    .await;
    let tmpfs = match mounted.expect("prepared") {
        Ok(tmpfs) => tmpfs,
        Err(reason) => {
            // SAFETY: geteuid has no preconditions.
            let root = unsafe { libc::geteuid() } == 0;
            assert!(!root, "root could not mount a tmpfs: {reason}");
            eprintln!("not root, so no tmpfs for this test: {reason}");
            cluster.stop().await;
            return;
        }
    };
    let filler = tmpfs.fill();

    // Writes reach rm2 (as leader or follower) until its storage cannot take them.
    let started = Instant::now();
    let mut written = 0;
    loop {
        let rm2 = cluster
            .state()
            .daemon("rm2")
            .expect("rm2 is a daemon")
            .clone();
        if rm2.state == DaemonState::Exited {
            assert!(
                matches!(rm2.last_exit, Some(DaemonExit::Code(code)) if code != 0),
                "rm2 exits non-zero on its own: {rm2:?}"
            );
            let log = std::fs::read_to_string(&rm2.log_file).unwrap_or_default();
            assert!(
                log.contains("No space left on device"),
                "rm2's log names the reason: {}",
                log.lines().rev().take(5).collect::<Vec<_>>().join("\n")
            );
            break;
        }
        assert!(
            started.elapsed() < DEADLINE * 3,
            "rm2 still runs on a full disk after {written} writes: {rm2:?}"
        );
        let large = pb::ApplicationSubmissionContextProto {
            application_name: Some("fill".to_owned()),
            am_container_spec: Some(pb::ContainerLaunchContextProto {
                commands: vec!["x".repeat(200 * 1024)],
                ..Default::default()
            }),
            ..Default::default()
        };
        if submit_context(&cluster.client, large).await.is_ok() {
            written += 1;
        }
    }
    eprintln!("rm2 exited on a full disk after {written} large submissions");

    // The group carries on without it, and rm2 rejoins once space is freed.
    let acknowledged = submit(&cluster.client, "after-rm2")
        .await
        .expect("the remaining replicas serve");
    // The disk is fixed: the filler goes, and the volume grows to hold what rm2 missed.
    std::fs::remove_file(&filler).expect("free the tmpfs");
    tmpfs.resize("256m");
    run_yarn_ha(vec![
        "minicluster".into(),
        "restart".into(),
        "--dir".into(),
        path(&cluster.base),
        "rm2".into(),
    ])
    .await;
    let leader = cluster.leader(None).await;
    eventually("rm2 to catch up with the leader", || async {
        let leader_applied = cluster.status_of(&leader).await?.last_applied_index;
        let rm2 = cluster.status_of("rm2").await?;
        (rm2.last_applied_index >= leader_applied).then_some(())
    })
    .await;
    assert!(cluster.applications().await.contains(&acknowledged));
    cluster.stop().await;
    drop(tmpfs);
}
