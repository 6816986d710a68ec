//! A `yarn-ha nodemanager` process killed with SIGKILL and started again on its recovery
//! directory: its running container is re-acquired as the same process, its queued container is
//! queued again and starts in order, and the node registers again with the ResourceManager (one
//! replica in this test process, over mutual TLS on 127.0.0.1).
//!
//! SIGKILL gives the NodeManager no chance to write anything on the way out, so this is what
//! proves its state store is durable when it acknowledges a start. The NodeManager's own tests
//! run it in process; this one needs the binary.

#[path = "../nodemanager/tests/common/mod.rs"]
mod common;

use std::fs::File;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};

use tempfile::TempDir;
use yarn_nodemanager::executor::Signal;
use yarn_proto::ids::ContainerId;
use yarn_proto::pb;

use common::cluster::{Cluster, Issuer, NodeView, must_end, within_deadline};
use common::{COMPLETE, GUARANTEED, KILLED_BY_APPMASTER, OPPORTUNISTIC, RUNNING, SCHEDULED, USER};

/// A NodeManager process; dropping it kills the process, so a failed test leaves none behind.
struct NmProcess {
    child: Child,
    log: PathBuf,
}

impl NmProcess {
    /// Starts `yarn-ha nodemanager` on the cluster's node configuration, written to `dir`.
    fn start(cluster: &Cluster, dir: &Path, generation: u32) -> Self {
        let conf = cluster.nm_conf();
        let properties: Vec<(&str, &str)> = conf
            .names()
            .filter_map(|name| Some((name, conf.get_raw(name)?)))
            .collect();
        std::fs::write(
            dir.join("yarn-site.xml"),
            yarn_conf::writer::site_xml(properties),
        )
        .unwrap();
        let log = dir.join(format!("nodemanager-{generation}.log"));
        let child = Command::new(env!("CARGO_BIN_EXE_yarn-ha"))
            .arg("--conf-dir")
            .arg(dir)
            .arg("nodemanager")
            .stdin(Stdio::null())
            .stdout(File::create(&log).unwrap())
            .stderr(Stdio::inherit())
            .spawn()
            .expect("start yarn-ha nodemanager");
        Self { child, log }
    }

    /// Sends SIGKILL and reaps the process.
    fn kill(mut self) {
        Signal::Kill.send(self.child.id()).expect("SIGKILL");
        let status = self.child.wait().unwrap();
        assert_eq!(
            std::os::unix::process::ExitStatusExt::signal(&status),
            Some(libc::SIGKILL),
            "the NodeManager exited before it was killed; see {}",
            self.log.display()
        );
    }
}

impl Drop for NmProcess {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// The node's status of `container_id`, through ContainerManagementProtocol as an AM asks.
async fn status(
    cluster: &Cluster,
    issuer: &Issuer,
    container_id: ContainerId,
) -> Option<pb::ContainerStatusProto> {
    let request = pb::GetContainerStatusesRequestProto {
        container_ids: vec![container_id.into()],
    };
    let response = cluster
        .am()
        .await
        .get_container_statuses(issuer.request(request))
        .await
        .ok()?
        .into_inner();
    response.statuses.into_iter().next()
}

/// Waits until the node reports `container_id` in `state`.
async fn reach(
    cluster: &Cluster,
    issuer: &Issuer,
    container_id: ContainerId,
    state: pb::ContainerStateProto,
) -> pb::ContainerStatusProto {
    within_deadline(
        &format!("the node to report {container_id} {state:?}"),
        || async {
            let status = status(cluster, issuer, container_id).await?;
            (status.state() == state).then_some(status)
        },
    )
    .await
}

/// The process leading the group of `container_id`: the one whose working directory is the
/// container's, under `<local-dirs>/usercache/<user>/appcache/<app>/<container>`.
fn container_root_pid(local_dir: &Path, container_id: ContainerId) -> Option<u32> {
    let work_dir = local_dir
        .join("usercache")
        .join(USER)
        .join("appcache")
        .join(container_id.application_id().to_string())
        .join(container_id.to_string());
    std::fs::read_dir("/proc")
        .ok()?
        .filter_map(|entry| entry.ok()?.file_name().to_str()?.parse::<u32>().ok())
        .find(|&pid| {
            std::fs::read_link(format!("/proc/{pid}/cwd")).is_ok_and(|cwd| cwd == work_dir)
                && common::leads_running_group(pid)
        })
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_sigkilled_nodemanager_recovers_running_and_queued_containers() {
    // The guaranteed container fills the node; the opportunistic one has to wait.
    let mut cluster = Cluster::new(1024, 2).await;
    cluster.rm.start(0).await;
    let issuer = cluster.issuer(None).await;
    let conf_dir = TempDir::new().unwrap();
    let local_dir = cluster.nm_dir.path().join("local");
    // The process binds the node's port itself.
    drop(cluster.nm_listener.take());
    let nm = NmProcess::start(&cluster, conf_dir.path(), 1);

    let running = issuer.container(1);
    let queued = issuer.container(2);
    cluster
        .start_once_registered(&issuer, issuer.start(running, 1024, GUARANTEED, "sleep 30"))
        .await;
    let response = cluster
        .start_containers(
            &issuer,
            vec![issuer.start(queued, 512, OPPORTUNISTIC, "exit 7")],
        )
        .await;
    assert_eq!(response.succeeded_requests, vec![queued.into()]);
    reach(&cluster, &issuer, running, RUNNING).await;
    let pid = within_deadline("the running container's process", || async {
        container_root_pid(&local_dir, running)
    })
    .await;
    cluster.seen.note_pid(pid);
    assert_eq!(
        status(&cluster, &issuer, queued).await.map(|s| s.state()),
        Some(SCHEDULED)
    );

    nm.kill();
    assert!(
        common::leads_running_group(pid),
        "the container died with its NodeManager"
    );

    let nm = NmProcess::start(&cluster, conf_dir.path(), 2);
    // Recovered before it serves: the same process still runs the container, the other waits.
    reach(&cluster, &issuer, running, RUNNING).await;
    assert_eq!(container_root_pid(&local_dir, running), Some(pid));
    assert_eq!(
        status(&cluster, &issuer, queued).await.map(|s| s.state()),
        Some(SCHEDULED)
    );

    // Accepting a start again means the node has registered with the leader.
    let later = issuer.container(3);
    cluster
        .start_once_registered(&issuer, issuer.start(later, 512, OPPORTUNISTIC, "exit 0"))
        .await;
    cluster.see_node(NodeView::Running).await;

    // Once the re-acquired container is stopped, the queue starts in its order.
    let stopped = cluster.stop_containers(&issuer, &[running]).await;
    assert_eq!(stopped.succeeded_requests, vec![running.into()]);
    let done = reach(&cluster, &issuer, running, COMPLETE).await;
    assert_eq!(done.exit_status, Some(KILLED_BY_APPMASTER));
    must_end("the re-acquired container's processes to end", pid).await;
    let done = reach(&cluster, &issuer, queued, COMPLETE).await;
    assert_eq!(done.exit_status, Some(7));
    let done = reach(&cluster, &issuer, later, COMPLETE).await;
    assert_eq!(done.exit_status, Some(0));

    drop(nm);
    cluster.shutdown().await;
}
