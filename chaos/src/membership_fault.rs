//! The membership fault ([`Fault::AddRemoveRm`]): a ResourceManager joins the Raft group while
//! the workload runs, and leaves it again.
//!
//! A chaos cluster is laid out with a spare replica ([`ClusterLayout::create_with_spare`]): its
//! own certificate, ports, storage directory and configuration, whose `rm-ids` end with its id,
//! as `docs/operations.md` asks of a replica about to join. Nothing starts it but this fault.
//! Injecting starts it on empty storage, where it waits to be contacted, and asks the leader
//! with the admin `AddRaftMember` call to add it: the leader adds it as a learner, replicates
//! the log (or a snapshot) to it, and promotes it to voter by joint consensus. The fault is in
//! force once the spare reports itself a voter following a leader: four voters, of which three
//! make a majority. Healing asks the leader to remove it (`RemoveRaftMember`, joint consensus
//! again) and then kills it, so everything checked after the run sees the original group.
//!
//! ```text
//!  inject  wipe <spare>/raft ─▶ start <spare> ─▶ it answers GetServiceStatus
//!          ─▶ AddRaftMember(<spare>, its Raft address) on the leader: learner, catch-up, voter
//!          ─▶ <spare> reports itself a voter following the leader
//!  hold    four voters, under load
//!  heal    RemoveRaftMember(<spare>) on the leader ─▶ SIGKILL <spare>
//! ```
//!
//! **Why add then remove, rather than remove a follower and add it back.** Both change the
//! membership twice under load. Removing a follower first leaves two voters, which survive no
//! failure, for the whole hold, and the removed replica, which never learns of its removal,
//! campaigns with ever higher terms until it is stopped; adding it back on wiped storage then
//! needs everything this fault does anyway. Adding a spare keeps the group's tolerance at one
//! failure at every moment (three voters, then four with a majority of three), exercises both
//! halves (a learner catching up from nothing on a busy log, a voter leaving a busy group), and
//! leaves the configured replicas, which observers and invariants watch, as they were.
//!
//! **Leader and retries.** Calls go to the replica that reports itself leader, found by asking
//! every replica at its real admin address, the spare included (as a voter it can win an
//! election), and are retried across leader changes for at most [`CHANGE_DEADLINE`]. A change
//! the leader refuses, or one that does not finish in time, fails the fault; a failed injection
//! is undone (the spare removed, then stopped) before it is reported. A spare that cannot be
//! removed keeps running, so that the group keeps its majority; the heal after the last fault
//! ([`ChaosCluster::heal_all`]) tries again, and [`ChaosCluster::stop`] kills it in any case.
//!
//! **What it leaves out.** The leader learns the spare's real Raft address: in the proxy mode
//! the spare has no fronts, so connections to it bypass the proxies (it dials its peers at their
//! fronts as every daemon does); in the netns mode the kernel's filter sees it as any other
//! daemon. No network rule is in force while it runs, since faults are injected one at a time
//! and each heal lifts the rules (in the netns mode that fails only if `iptables-restore` does,
//! and the failure is recorded on the fault). The other daemons' and the clients' configurations never
//! name the spare, as before an operator adds a new replica to `rm-ids` everywhere: while the
//! spare leads, clients, NodeManagers and ApplicationMasters cannot reach the leader.

use std::collections::BTreeMap;
use std::fs::OpenOptions;
use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::Stdio;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::Duration;

use anyhow::Context;
use tokio::process::{Child, Command};
use tokio::sync::Mutex;
use tokio::time::{Instant, sleep, timeout};
use tonic::transport::Channel;
use tonic::{Code, Status};
use yarn_minicluster::{
    ClusterLayout, ManifestDaemon, RmLayout, daemon_addresses, spawn_in_cgroup,
};
use yarn_nodemanager::executor::Signal;
use yarn_proto::pb::resource_manager_administration_protocol_client::ResourceManagerAdministrationProtocolClient;
use yarn_proto::pb::{
    AddRaftMemberRequestProto, GetClusterMembershipResponseProto, HaServiceStatusRequestProto,
    HaServiceStatusResponseProto, RaftMemberProto, RemoveRaftMemberRequestProto,
};
use yarn_security::{ChannelOptions, TlsConfig, connect_lazy};

use crate::chaos_cluster::{ChaosCluster, replica_statuses, sole_leader};
use crate::cluster_view::ClusterView;
use crate::fault::{Fault, FaultAction, FaultPlan};
use crate::network_mode::OBSERVER_ADDRESS;
use crate::timeline::FaultSteps;

/// How long the spare may take to answer on its admin address after it starts.
const SPARE_START_DEADLINE: Duration = Duration::from_secs(15);

/// How long adding the spare (its catch-up included) or removing it may take, across retries.
pub const CHANGE_DEADLINE: Duration = Duration::from_secs(30);

/// How long one `AddRaftMember` or `RemoveRaftMember` call may take (and never past
/// [`CHANGE_DEADLINE`]): a learner catching up on a busy log can take seconds.
const CALL_DEADLINE: Duration = Duration::from_secs(20);

/// How long the spare may take, once the leader made it a voter, to report itself one.
const FOLLOW_DEADLINE: Duration = Duration::from_secs(10);

/// The pause between two tries or two polls.
const RETRY_PAUSE: Duration = Duration::from_millis(300);

/// How long a status call to the spare may take.
const STATUS_DEADLINE: Duration = Duration::from_millis(700);

/// How long a killed spare may take to be reaped.
const STOP_DEADLINE: Duration = Duration::from_secs(10);

/// Where a membership fault's steps go: a fault's [`FaultSteps`], or the log when the final
/// heal cleans up.
pub(crate) type StepRecorder<'a> = dyn FnMut(String) + Send + 'a;

/// A membership fault resolved to the spare it adds and removes.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct MembershipAction {
    /// The spare's rm id.
    pub spare: String,
}

/// Plans adding and removing the spare, [`ClusterLayout::spare_rm_id`] of the cluster's size.
///
/// # Errors
///
/// When a ResourceManager is down (the larger group would be one failure from losing its
/// majority while the change is under way) or no leader is known to take the change. A
/// partition is never in force when a fault is planned: faults come one at a time and each heal
/// lifts the network rules (in the netns mode that fails only if `iptables-restore` does).
pub(crate) fn plan(view: &ClusterView) -> Result<FaultPlan, String> {
    if !view.all_rms_running() {
        return Err(format!(
            "only {} of {} ResourceManagers run; a membership change now could cost the \
             majority",
            view.running_rms().len(),
            view.rms.len()
        ));
    }
    let leader = view
        .leader
        .clone()
        .ok_or_else(|| "no ResourceManager reports ACTIVE to take the change".to_owned())?;
    let spare = ClusterLayout::spare_rm_id(view.rms.len());
    Ok(FaultPlan {
        fault: Fault::AddRemoveRm,
        target: spare.clone(),
        leader: Some(leader),
        targets_leader: false,
        nodes: Vec::new(),
        action: FaultAction::Membership(MembershipAction { spare }),
    })
}

impl MembershipAction {
    /// Starts the spare on empty storage and has the leader add it as a voter; returns once the
    /// spare reports itself a voter following a leader. Each step goes to `steps`.
    ///
    /// # Errors
    ///
    /// When the spare is not this plan's, still runs or may still be a member after an earlier
    /// failure, does not start or answer, or the change is refused or does not finish within
    /// [`CHANGE_DEADLINE`]. The injection is undone first (the spare removed and stopped); the
    /// message says so when that failed too.
    pub async fn inject(
        &self,
        cluster: &ChaosCluster,
        steps: &mut FaultSteps,
    ) -> anyhow::Result<()> {
        let spare = cluster.spare();
        anyhow::ensure!(
            spare.rm_id() == self.spare,
            "the cluster's spare ResourceManager is {}, not {}",
            spare.rm_id(),
            self.spare
        );
        anyhow::ensure!(
            !spare.may_be_member() && !spare.is_running().await,
            "the spare {} still runs or may still be a member: an earlier change could not be \
             undone (the heal after the last fault tries again)",
            self.spare
        );
        let mut record = |what: String| steps.record(what);
        if let Err(err) = join(cluster, &mut record).await {
            return match retire_spare(cluster, &mut record).await {
                Ok(()) => Err(err),
                Err(undo) => Err(anyhow::anyhow!("{err:#}; undoing it failed too: {undo:#}")),
            };
        }
        Ok(())
    }

    /// Has the leader remove the spare, then kills it. Each step goes to `steps`.
    ///
    /// # Errors
    ///
    /// When the removal is refused or does not finish within [`CHANGE_DEADLINE`] (the spare
    /// then keeps running), or the spare cannot be killed.
    pub async fn heal(&self, cluster: &ChaosCluster, steps: &mut FaultSteps) -> anyhow::Result<()> {
        retire_spare(cluster, &mut |what: String| steps.record(what)).await
    }
}

/// Starts the spare, has it added as a voter and waits until it follows as one.
async fn join(cluster: &ChaosCluster, record: &mut StepRecorder<'_>) -> anyhow::Result<()> {
    let spare = cluster.spare();
    let id = spare.rm_id();
    spare.start().await?;
    record(format!("{id} started on empty storage"));
    spare.wait_answering().await?;
    spare.set_may_be_member(true);
    let (leader, membership) = change(cluster, Change::Add, record)
        .await
        .with_context(|| format!("adding {id} to the Raft group"))?;
    record(format!(
        "{id} is a voter, added by {leader} (voters {})",
        voters(&membership)
    ));
    let status = spare.wait_following().await?;
    record(format!(
        "{id} follows {} as a voter (term {}, applied index {})",
        status.leader_rm_id, status.current_term, status.last_applied_index
    ));
    Ok(())
}

/// Removes the spare from the group if it may be a member, then kills it if it runs.
///
/// # Errors
///
/// When the removal is refused or does not finish within [`CHANGE_DEADLINE`]: the spare then
/// keeps running, so a group that still counts it as a voter keeps its majority. When the
/// process cannot be killed.
pub(crate) async fn retire_spare(
    cluster: &ChaosCluster,
    record: &mut StepRecorder<'_>,
) -> anyhow::Result<()> {
    let spare = cluster.spare();
    let id = spare.rm_id();
    if spare.may_be_member() {
        let (leader, membership) = change(cluster, Change::Remove, record)
            .await
            .with_context(|| format!("removing {id} (left running: the group may count it)"))?;
        spare.set_may_be_member(false);
        record(format!(
            "{id} removed by {leader} (voters {})",
            voters(&membership)
        ));
    }
    if let Some(ended) = spare.stop().await? {
        record(format!("{id} {ended}"));
    }
    Ok(())
}

/// A membership change of the spare.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Change {
    /// `AddRaftMember`: as a learner, then a voter.
    Add,
    /// `RemoveRaftMember`.
    Remove,
}

impl Change {
    fn rpc(self) -> &'static str {
        match self {
            Change::Add => "AddRaftMember",
            Change::Remove => "RemoveRaftMember",
        }
    }

    /// Whether `membership`, a leader's answer, shows the change done.
    fn done(self, membership: &GetClusterMembershipResponseProto, spare: &str) -> bool {
        let member = membership
            .members
            .iter()
            .find(|member| member.rm_id == spare);
        match self {
            Change::Add => member.is_some_and(|member| member.voter),
            Change::Remove => member.is_none(),
        }
    }
}

/// Whether a failed membership call is worth sending again, to whoever leads by then.
///
/// Sent again: UNAVAILABLE (not the leader, or unreachable), FAILED_PRECONDITION (openraft
/// refuses a change while an earlier one, maybe a previous leader's, is not committed; a
/// lasting refusal fails at the deadline with the leader's message), DEADLINE_EXCEEDED and
/// CANCELLED (the call ran out; the change is idempotent), ABORTED, INTERNAL (Raft stopped on
/// that replica; another will lead), UNKNOWN (the connection broke mid-call) and
/// RESOURCE_EXHAUSTED. Every other code is a refusal that another try would get again.
fn worth_retrying(code: Code) -> bool {
    matches!(
        code,
        Code::Unavailable
            | Code::FailedPrecondition
            | Code::DeadlineExceeded
            | Code::Cancelled
            | Code::Aborted
            | Code::Internal
            | Code::Unknown
            | Code::ResourceExhausted
    )
}

/// Makes `change` through whoever leads, trying again across leader changes until
/// [`CHANGE_DEADLINE`]; returns the leader that made it and the membership it answered.
///
/// # Errors
///
/// When a leader refuses the change (a code [`worth_retrying`] rejects) or the deadline passes;
/// the message names the leader and its answer, or what was missing.
async fn change(
    cluster: &ChaosCluster,
    change: Change,
    record: &mut StepRecorder<'_>,
) -> anyhow::Result<(String, GetClusterMembershipResponseProto)> {
    let spare = cluster.spare();
    let deadline = Instant::now() + CHANGE_DEADLINE;
    let mut asked: Option<String> = None;
    let mut last_failure = String::new();
    loop {
        let failure = match current_leader(cluster).await {
            None => "no replica reports ACTIVE".to_owned(),
            Some(leader) => {
                if asked.as_deref() != Some(leader.as_str()) {
                    record(format!(
                        "{} {} ({}) sent to {leader}",
                        change.rpc(),
                        spare.rm_id(),
                        spare.raft_address()
                    ));
                    asked = Some(leader.clone());
                }
                // No call outlives the change's deadline.
                let remaining = deadline.saturating_duration_since(Instant::now());
                let answer = match cluster.admin_client(&leader, CALL_DEADLINE.min(remaining)) {
                    Ok(admin) => call(admin, change, spare).await,
                    Err(err) => Err(Status::unavailable(format!("{err:#}"))),
                };
                match answer {
                    Ok(membership) if change.done(&membership, spare.rm_id()) => {
                        return Ok((leader, membership));
                    }
                    Ok(membership) => format!(
                        "{leader} answered, but its membership ({}) does not show the change",
                        voters(&membership)
                    ),
                    Err(status) if worth_retrying(status.code()) => {
                        format!("{leader}: {:?}: {}", status.code(), status.message())
                    }
                    Err(status) => anyhow::bail!(
                        "{leader} refused {}: {:?}: {}",
                        change.rpc(),
                        status.code(),
                        status.message()
                    ),
                }
            }
        };
        if failure != last_failure {
            record(format!("{} not done yet: {failure}", change.rpc()));
            last_failure = failure;
        }
        if Instant::now() + RETRY_PAUSE >= deadline {
            anyhow::bail!(
                "{} of {} not done within {CHANGE_DEADLINE:?}: {last_failure}",
                change.rpc(),
                spare.rm_id()
            );
        }
        sleep(RETRY_PAUSE).await;
    }
}

/// Sends `change` of `spare` to `admin`; returns the membership the leader answers with.
async fn call(
    mut admin: ResourceManagerAdministrationProtocolClient<Channel>,
    change: Change,
    spare: &SpareReplica,
) -> Result<GetClusterMembershipResponseProto, Status> {
    let membership = match change {
        Change::Add => {
            let request = AddRaftMemberRequestProto {
                member: Some(RaftMemberProto {
                    rm_id: spare.rm_id().to_owned(),
                    raft_address: spare.raft_address().to_owned(),
                    voter: true,
                }),
            };
            admin
                .add_raft_member(request)
                .await?
                .into_inner()
                .membership
        }
        Change::Remove => {
            let request = RemoveRaftMemberRequestProto {
                rm_id: spare.rm_id().to_owned(),
            };
            admin
                .remove_raft_member(request)
                .await?
                .into_inner()
                .membership
        }
    };
    Ok(membership.unwrap_or_default())
}

/// The replica that reports itself leader, the spare included.
async fn current_leader(cluster: &ChaosCluster) -> Option<String> {
    let spare = cluster.spare();
    let mut admins = cluster.admin_clients();
    admins.insert(spare.rm_id().to_owned(), spare.admin.clone());
    sole_leader(&replica_statuses(&admins).await)
}

/// The voters of `membership`, comma-separated.
fn voters(membership: &GetClusterMembershipResponseProto) -> String {
    let voters: Vec<&str> = membership
        .members
        .iter()
        .filter(|member| member.voter)
        .map(|member| member.rm_id.as_str())
        .collect();
    voters.join(", ")
}

/// Whether a replica's status says it is a voter that follows (or is) a leader.
fn follows_as_voter(status: &HaServiceStatusResponseProto) -> bool {
    status.ready_to_become_active && !status.leader_rm_id.is_empty()
}

/// The spare ResourceManager of a chaos cluster: laid out with it, started and stopped only by
/// the membership fault.
///
/// Guarantees: its process is killed by [`stop`](Self::stop), and when this value is dropped
/// (the child is spawned with kill-on-drop); it works in its own directory under the cluster's,
/// so [`super::kill_leftovers`] of the cluster's directory ends it too.
#[derive(Debug)]
pub struct SpareReplica {
    rm_id: String,
    conf_dir: PathBuf,
    storage_dir: PathBuf,
    work_dir: PathBuf,
    log_file: PathBuf,
    exe: PathBuf,
    env: BTreeMap<String, String>,
    /// The cgroup it joins before it execs (the netns mode's), if any.
    cgroup: Option<PathBuf>,
    raft_address: String,
    admin_address: String,
    admin: ResourceManagerAdministrationProtocolClient<Channel>,
    /// The running process, if any. A Tokio mutex: stopping awaits the child under it.
    process: Mutex<Option<Child>>,
    /// Set before the first `AddRaftMember`, cleared once a removal succeeded: whether the
    /// group may count the spare.
    may_be_member: AtomicBool,
}

impl SpareReplica {
    /// The spare laid out as `layout`, run by `exe` with `env` added to the inherited
    /// environment, logging to `log_file`, in `cgroup` when given (the netns mode's); its
    /// admin client presents `tls`'s certificate.
    ///
    /// # Errors
    ///
    /// When its configuration cannot be read or names no admin or Raft address.
    pub fn new(
        layout: &RmLayout,
        log_file: PathBuf,
        exe: &Path,
        env: &BTreeMap<String, String>,
        tls: &TlsConfig,
        cgroup: Option<PathBuf>,
    ) -> anyhow::Result<Self> {
        let daemon = ManifestDaemon::resourcemanager(layout);
        let addresses = daemon_addresses(&daemon)?;
        let address = |service: &str| {
            addresses
                .get(service)
                .cloned()
                .with_context(|| format!("the spare {} has no {service} address", layout.rm_id))
        };
        let admin_address = address("admin")?;
        let options = ChannelOptions {
            connect_timeout: Duration::from_secs(1),
            request_timeout: STATUS_DEADLINE,
            local_address: Some(OBSERVER_ADDRESS),
            ..ChannelOptions::default()
        };
        let channel = connect_lazy(&admin_address, tls.client_config(), &options)
            .with_context(|| format!("the admin address {admin_address} of {}", layout.rm_id))?;
        Ok(Self {
            rm_id: layout.rm_id.clone(),
            conf_dir: layout.conf_dir.clone(),
            storage_dir: layout.storage_dir.clone(),
            work_dir: layout
                .conf_dir
                .parent()
                .unwrap_or(&layout.conf_dir)
                .to_owned(),
            log_file,
            exe: exe.to_owned(),
            env: env.clone(),
            cgroup,
            raft_address: address("raft")?,
            admin_address,
            admin: ResourceManagerAdministrationProtocolClient::new(channel),
            process: Mutex::new(None),
            may_be_member: AtomicBool::new(false),
        })
    }

    /// Its rm id.
    pub fn rm_id(&self) -> &str {
        &self.rm_id
    }

    /// Its real Raft address, the one the leader is given.
    pub fn raft_address(&self) -> &str {
        &self.raft_address
    }

    /// Its real admin address.
    pub fn admin_address(&self) -> &str {
        &self.admin_address
    }

    /// Its log file, appended to at every start.
    pub fn log_file(&self) -> &Path {
        &self.log_file
    }

    /// Whether the group may count it as a member: an add was sent and no removal succeeded
    /// since.
    pub fn may_be_member(&self) -> bool {
        self.may_be_member.load(Ordering::SeqCst)
    }

    fn set_may_be_member(&self, member: bool) {
        self.may_be_member.store(member, Ordering::SeqCst);
    }

    /// Whether its process runs (a started one that has not exited).
    pub async fn is_running(&self) -> bool {
        let mut process = self.process.lock().await;
        process
            .as_mut()
            .is_some_and(|child| matches!(child.try_wait(), Ok(None)))
    }

    /// Empties its storage directory and starts it, as
    /// `<exe> resourcemanager --rm-id <id> --conf-dir <conf>` in its own process group and
    /// directory, its output appended to its log file after a header line.
    ///
    /// # Errors
    ///
    /// When it already runs, its storage cannot be emptied, its log cannot be opened, or the
    /// process cannot be started.
    pub async fn start(&self) -> anyhow::Result<()> {
        let mut process = self.process.lock().await;
        if let Some(child) = process.as_mut() {
            anyhow::ensure!(
                !matches!(child.try_wait(), Ok(None)),
                "the spare {} already runs",
                self.rm_id
            );
        }
        // A replica joins on empty storage: what an earlier start left belongs to a member
        // that was removed since.
        if self.storage_dir.exists() {
            std::fs::remove_dir_all(&self.storage_dir).with_context(|| {
                format!(
                    "emptying the storage {} of the spare {}",
                    self.storage_dir.display(),
                    self.rm_id
                )
            })?;
        }
        let args = [
            "resourcemanager".into(),
            "--rm-id".into(),
            self.rm_id.clone().into(),
            "--conf-dir".into(),
            self.conf_dir.clone().into_os_string(),
        ];
        let command_line: Vec<String> = std::iter::once(self.exe.as_os_str())
            .chain(args.iter().map(|arg| arg.as_os_str()))
            .map(|part| part.to_string_lossy().into_owned())
            .collect();
        let open_log = || -> std::io::Result<(std::fs::File, std::fs::File)> {
            let mut log = OpenOptions::new()
                .create(true)
                .append(true)
                .open(&self.log_file)?;
            writeln!(
                log,
                "--- yarn-ha chaos, {}: starting the spare {}: {}",
                time::OffsetDateTime::now_utc(),
                self.rm_id,
                command_line.join(" ")
            )?;
            let stderr = log.try_clone()?;
            Ok((log, stderr))
        };
        let (stdout, stderr) = open_log().with_context(|| {
            format!(
                "opening {}, the log file of the spare {}",
                self.log_file.display(),
                self.rm_id
            )
        })?;
        let mut command = Command::new(&self.exe);
        command
            .args(&args)
            .stdin(Stdio::null())
            .env("NO_COLOR", "1")
            .envs(&self.env)
            .stdout(stdout)
            .stderr(stderr)
            .current_dir(&self.work_dir)
            .process_group(0)
            .kill_on_drop(true);
        let child = spawn_in_cgroup(&mut command, self.cgroup.as_deref()).with_context(|| {
            format!(
                "starting the spare {}: {}",
                self.rm_id,
                command_line.join(" ")
            )
        })?;
        *process = Some(child);
        Ok(())
    }

    /// Waits until it answers `GetServiceStatus`.
    ///
    /// # Errors
    ///
    /// When its process exits first, or [`SPARE_START_DEADLINE`] passes.
    async fn wait_answering(&self) -> anyhow::Result<()> {
        let deadline = Instant::now() + SPARE_START_DEADLINE;
        loop {
            let answer = self.status().await;
            if answer.is_ok() {
                return Ok(());
            }
            self.ensure_running().await?;
            if Instant::now() >= deadline {
                anyhow::bail!(
                    "the spare {} did not answer on {} within {SPARE_START_DEADLINE:?}: {}",
                    self.rm_id,
                    self.admin_address,
                    answer.err().unwrap_or_default()
                );
            }
            sleep(RETRY_PAUSE).await;
        }
    }

    /// Waits until it reports itself a voter that follows a leader; returns that status.
    ///
    /// # Errors
    ///
    /// When its process exits first, or [`FOLLOW_DEADLINE`] passes.
    async fn wait_following(&self) -> anyhow::Result<HaServiceStatusResponseProto> {
        let deadline = Instant::now() + FOLLOW_DEADLINE;
        loop {
            let answer = self.status().await;
            match &answer {
                Ok(status) if follows_as_voter(status) => return Ok(status.clone()),
                _ => self.ensure_running().await?,
            }
            if Instant::now() >= deadline {
                anyhow::bail!(
                    "the leader made {} a voter, but it did not report itself one following \
                     a leader within {FOLLOW_DEADLINE:?}; its last answer: {answer:?}",
                    self.rm_id
                );
            }
            sleep(RETRY_PAUSE).await;
        }
    }

    async fn status(&self) -> Result<HaServiceStatusResponseProto, String> {
        match timeout(
            STATUS_DEADLINE,
            self.admin
                .clone()
                .get_service_status(HaServiceStatusRequestProto {}),
        )
        .await
        {
            Ok(Ok(reply)) => Ok(reply.into_inner()),
            Ok(Err(status)) => Err(format!("{:?}: {}", status.code(), status.message())),
            Err(_) => Err(format!("no answer within {STATUS_DEADLINE:?}")),
        }
    }

    /// Fails when the process has exited, naming its exit status and log.
    async fn ensure_running(&self) -> anyhow::Result<()> {
        let mut process = self.process.lock().await;
        let exited = match process.as_mut() {
            None => Some("it was never started".to_owned()),
            Some(child) => match child.try_wait() {
                Ok(None) => None,
                Ok(Some(status)) => Some(format!("it exited with {status}")),
                Err(err) => Some(format!("its status cannot be read: {err}")),
            },
        };
        match exited {
            None => Ok(()),
            Some(why) => anyhow::bail!(
                "the spare {} stopped: {why}; see {}",
                self.rm_id,
                self.log_file.display()
            ),
        }
    }

    /// SIGKILLs its process group and reaps it. Returns how its last start ended (`stopped`,
    /// or `had exited with <status>` when it ended on its own), or `None` when it had no
    /// process since the last stop.
    ///
    /// # Errors
    ///
    /// When the process is not reaped within [`STOP_DEADLINE`].
    pub async fn stop(&self) -> anyhow::Result<Option<String>> {
        let mut process = self.process.lock().await;
        let Some(mut child) = process.take() else {
            return Ok(None);
        };
        let exited = child.try_wait().ok().flatten();
        if exited.is_none()
            && let Some(pid) = child.id()
        {
            // It may exit on its own between the look and the signal; the wait below reaps it.
            if let Err(err) = Signal::Kill.send_to_group(pid) {
                tracing::debug!("killing the spare {}'s group {pid}: {err}", self.rm_id);
            }
        }
        match timeout(STOP_DEADLINE, child.wait()).await {
            Ok(_) => Ok(Some(exited.map_or_else(
                || "stopped".to_owned(),
                |status| format!("had exited with {status}"),
            ))),
            Err(_) => {
                // Kill-on-drop sends SIGKILL once more when the child goes out of scope.
                anyhow::bail!(
                    "the spare {} was not reaped within {STOP_DEADLINE:?} of SIGKILL",
                    self.rm_id
                )
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn view(leader: Option<&str>, running: &[&str]) -> ClusterView {
        ClusterView {
            rms: vec!["rm1".into(), "rm2".into(), "rm3".into()],
            nms: vec!["nm1".into()],
            leader: leader.map(str::to_owned),
            running: running.iter().map(|id| (*id).to_owned()).collect(),
            failpoints_missing: None,
            delay_missing: None,
            volatile_disks_missing: None,
        }
    }

    const ALL: &[&str] = &["rm1", "rm2", "rm3", "nm1"];

    #[test]
    fn the_fault_adds_the_spare_next_in_sequence_without_taking_the_leader_away() {
        let plan = Fault::AddRemoveRm.plan(&view(Some("rm2"), ALL), 5).unwrap();
        assert_eq!(plan.target, "rm4");
        assert_eq!(plan.leader.as_deref(), Some("rm2"));
        assert!(!plan.targets_leader);
        assert!(plan.nodes.is_empty());
        assert_eq!(
            plan.action,
            FaultAction::Membership(MembershipAction {
                spare: "rm4".into()
            })
        );
        // The pick chooses nothing: there is one spare.
        assert_eq!(
            Fault::AddRemoveRm.plan(&view(Some("rm2"), ALL), 6),
            Ok(plan)
        );
    }

    #[test]
    fn no_change_is_made_with_a_replica_down_or_no_leader() {
        let down = Fault::AddRemoveRm
            .plan(&view(Some("rm1"), &["rm1", "rm2", "nm1"]), 0)
            .unwrap_err();
        assert!(
            down.contains("only 2 of 3") && down.contains("majority"),
            "{down}"
        );
        let leaderless = Fault::AddRemoveRm.plan(&view(None, ALL), 0).unwrap_err();
        assert!(leaderless.contains("ACTIVE"), "{leaderless}");
        // A stopped NodeManager does not matter to the group.
        assert!(
            Fault::AddRemoveRm
                .plan(&view(Some("rm1"), &["rm1", "rm2", "rm3"]), 0)
                .is_ok()
        );
    }

    fn membership(members: &[(&str, bool)]) -> GetClusterMembershipResponseProto {
        GetClusterMembershipResponseProto {
            members: members
                .iter()
                .map(|(id, voter)| RaftMemberProto {
                    rm_id: (*id).to_owned(),
                    raft_address: "127.0.0.1:1".to_owned(),
                    voter: *voter,
                })
                .collect(),
            leader_rm_id: "rm1".to_owned(),
            current_term: 2,
        }
    }

    #[test]
    fn an_add_is_done_once_the_spare_votes_and_a_removal_once_it_is_gone() {
        let learner = membership(&[("rm1", true), ("rm2", true), ("rm4", false)]);
        let voter = membership(&[("rm1", true), ("rm2", true), ("rm4", true)]);
        let without = membership(&[("rm1", true), ("rm2", true)]);
        assert!(!Change::Add.done(&learner, "rm4"));
        assert!(Change::Add.done(&voter, "rm4"));
        assert!(!Change::Add.done(&without, "rm4"));
        assert!(!Change::Remove.done(&learner, "rm4"));
        assert!(!Change::Remove.done(&voter, "rm4"));
        assert!(Change::Remove.done(&without, "rm4"));
        assert_eq!(voters(&learner), "rm1, rm2");
    }

    #[test]
    fn leader_changes_and_pending_changes_are_retried_and_refusals_are_not() {
        for code in [
            Code::Unavailable,
            Code::FailedPrecondition,
            Code::DeadlineExceeded,
            Code::Internal,
            Code::Unknown,
        ] {
            assert!(worth_retrying(code), "{code:?}");
        }
        for code in [
            Code::InvalidArgument,
            Code::PermissionDenied,
            Code::Unauthenticated,
            Code::Unimplemented,
        ] {
            assert!(!worth_retrying(code), "{code:?}");
        }
    }

    #[test]
    fn the_spare_follows_once_it_votes_and_knows_a_leader() {
        let status = |ready: bool, leader: &str| HaServiceStatusResponseProto {
            ready_to_become_active: ready,
            leader_rm_id: leader.to_owned(),
            ..HaServiceStatusResponseProto::default()
        };
        assert!(follows_as_voter(&status(true, "rm2")));
        assert!(!follows_as_voter(&status(false, "rm2")), "a learner");
        assert!(!follows_as_voter(&status(true, "")), "mid-election");
    }
}
